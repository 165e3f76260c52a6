// Bundles the CLI (src/cli.ts and everything it imports: the quote engine, its WebAssembly
// kernels, yauzl and saxes) into one ESM file, dist/layerline.mjs, so a run loads one small
// file instead of type-stripping ~40 TypeScript modules (~300 ms at every start).
//
// Plain JavaScript on purpose: `npm ci` runs it as this workspace's `prepare` script, possibly
// before the repository's own Node 24 (a dev dependency) is linked, so it must run on any Node.
//
// Beside the bundle, dist/layerline.inputs.json lists every file that went into it with its
// size and mtime; bin/layerline.mjs compares them (`bundleIsFresh`, ~1 ms) and rebuilds the
// bundle when a source changed, so an edit to the engine is never answered by a stale bundle.
import { renameSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CLI_DIR = dirname(fileURLToPath(import.meta.url));
const DIST = join(CLI_DIR, 'dist');
export const BUNDLE = join(DIST, 'layerline.mjs');
const STAMP = join(DIST, 'layerline.inputs.json');
// A file modified this close to the build's start may or may not be in the bundle (coarse
// file-system clocks): such a build is used but not stamped, so the next run builds again.
const CLOCK_SLACK_MS = 2000;

/** True when the bundle exists and no file it was built from changed since. */
export function bundleIsFresh() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    statSync(BUNDLE);
  } catch {
    return false;
  }
  for (const [file, size, mtimeMs] of stamp.inputs) {
    const st = statSync(join(CLI_DIR, file), { throwIfNoEntry: false });
    if (!st || st.size !== size || st.mtimeMs !== mtimeMs) return false;
  }
  return true;
}

/** Builds dist/layerline.mjs (written beside and renamed, so a concurrent run never reads half a file). */
export async function buildBundle() {
  const { build } = await import('esbuild');
  const started = Date.now();
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  mkdirSync(DIST, { recursive: true });
  const result = await build({
    absWorkingDir: CLI_DIR,
    entryPoints: ['src/cli.ts'],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    metafile: true,
    logLevel: 'warning',
    // yauzl and saxes are CommonJS and require Node built-ins; an ES module has no `require`.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
  });
  renameSync(tmp, BUNDLE);
  const inputs = [...Object.keys(result.metafile.inputs), 'build.mjs'].map((file) => {
    const st = statSync(join(CLI_DIR, file));
    return [file, st.size, st.mtimeMs];
  });
  if (inputs.every(([, , mtimeMs]) => mtimeMs < started - CLOCK_SLACK_MS)) {
    writeFileSync(`${STAMP}.${process.pid}.tmp`, JSON.stringify({ inputs }) + '\n');
    renameSync(`${STAMP}.${process.pid}.tmp`, STAMP);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await buildBundle();
    console.log(`built ${BUNDLE}`);
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    // An install without dev dependencies has no esbuild: the CLI runs from its TypeScript source.
    console.log('esbuild is not installed: layerline will run from its TypeScript source');
  }
}
