import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * No file imports in a circle (docs/architecture.md, "No file imports in a circle"). A circle makes
 * the order in which modules initialise depend on which file is loaded first (a table, a constant or a
 * class read before it is defined), and it means two files cannot be understood or moved apart.
 *
 * Edges are the imports and re-exports of every .ts/.tsx file in apps/server/src, apps/web/src and
 * packages/*\/src, resolved from their relative paths. Type-only imports count: erased at run time, they
 * still make two files that cannot be read, changed or moved one without the other. Dynamic `import()`
 * counts too: a file the web app loads lazily must still not reach back into the one that loads it
 * (TourProvider lazily loads TourDialog, which reads the tour's context from a third file).
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const sourceRoots = [
  'apps/server/src',
  'apps/web/src',
  ...readdirSync(path.join(repoRoot, 'packages')).map((name) => `packages/${name}/src`),
].filter((dir) => {
  try {
    return statSync(path.join(repoRoot, dir)).isDirectory();
  } catch {
    return false;
  }
});

/** File -> the files it imports, as paths relative to the repository. */
type ImportGraph = Map<string, string[]>;

/**
 * Every circle, once: the strongly connected groups of files (Tarjan), and in each, for every file the
 * shortest circle back to it, rotated to start at its smallest name so the same circle is listed once.
 */
function findImportCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
      }
    }
    if (lowLink.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) groups.push(group);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);

  const cycles = new Map<string, string[]>();
  for (const group of groups) {
    const inGroup = new Set(group);
    for (const start of group) {
      // Breadth-first from start, inside its group, until an edge leads back to start.
      const cameFrom = new Map<string, string>();
      const queue = [start];
      let last: string | undefined;
      while (queue.length > 0 && last === undefined) {
        const node = queue.shift()!;
        for (const next of graph.get(node) ?? []) {
          if (next === start) {
            last = node;
            break;
          }
          if (inGroup.has(next) && !cameFrom.has(next)) {
            cameFrom.set(next, node);
            queue.push(next);
          }
        }
      }
      let node = last!;
      const cycle = [node];
      while (node !== start) {
        node = cameFrom.get(node)!;
        cycle.unshift(node);
      }
      const first = cycle.indexOf([...cycle].sort()[0]!);
      const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
      cycles.set(rotated.join(' '), rotated);
    }
  }
  return [...cycles.values()].sort((a, b) => a.join(' ').localeCompare(b.join(' ')));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The module specifiers a file imports or re-exports at its top level (`import … from`, `export … from`). */
function staticSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) specifiers.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** A relative specifier as the file it names (with or without its extension, or a folder's index), else null. */
function resolveRelative(fromFile: string, specifier: string, files: ReadonlySet<string>): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ];
  // Bundler-style `./x.js` naming `./x.ts`.
  if (/\.jsx?$/.test(base)) candidates.push(base.replace(/\.js(x?)$/, '.ts$1'));
  return candidates.find((candidate) => files.has(candidate)) ?? null;
}

function importGraph(): ImportGraph {
  const files = sourceRoots.flatMap((dir) => sourceFiles(path.join(repoRoot, dir)));
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const targets = staticSpecifiers(file)
      .map((specifier) => resolveRelative(file, specifier, known))
      .filter((target): target is string => target !== null);
    graph.set(path.relative(repoRoot, file), [
      ...new Set(targets.map((target) => path.relative(repoRoot, target))),
    ]);
  }
  return graph;
}

describe('imports', () => {
  it('finds every circle of a graph, each once', () => {
    const graph: ImportGraph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', ['b']],
      ['e', ['e']],
      ['f', ['a']],
    ]);
    expect(findImportCycles(graph)).toEqual([['a', 'b', 'c'], ['b', 'd'], ['e']]);
    expect(
      findImportCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads the source tree it guards', () => {
    const graph = importGraph();
    // The schema index and the server's wiring are in it, with their edges: a resolver that reads
    // nothing would let every circle through.
    expect(graph.get('apps/server/src/db/schema.ts')).toContain(
      'apps/server/src/modules/orders/orders-schema.ts',
    );
    expect(graph.get('apps/web/src/main.tsx')?.length).toBeGreaterThan(0);
    expect(graph.size).toBeGreaterThan(300);
  });

  it('no file imports in a circle', () => {
    const cycles = findImportCycles(importGraph()).map((cycle) => [...cycle, cycle[0]].join('\n    -> '));
    expect(cycles, `import cycles:\n  ${cycles.join('\n  ')}`).toEqual([]);
  });
});
