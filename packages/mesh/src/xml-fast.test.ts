import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MeshError } from './errors.ts';
import { parse3mf } from './threemf.ts';
import { FastModelFilter } from './xml-fast.ts';
import { cubeModelXml, make3mf } from './testing/zip-writer.ts';

const DIR = '/work/shared/models/';
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

type Outcome = { ok: true; positions: number[]; indices: number[]; parts: number[]; warnings: string[] } | { ok: false; code: string };

async function outcome(bytes: Uint8Array, fastXml: boolean): Promise<Outcome> {
  try {
    const r = await parse3mf(bytes, { fastXml });
    return { ok: true, positions: [...r.positions], indices: [...r.indices], parts: [...r.parts], warnings: r.warnings };
  } catch (e) {
    if (e instanceof MeshError) return { ok: false, code: e.code };
    return { ok: false, code: `not a MeshError: ${(e as Error).message}` };
  }
}

async function expectSameAsSaxes(bytes: Uint8Array): Promise<Outcome> {
  const fast = await outcome(bytes, true);
  const slow = await outcome(bytes, false);
  expect(fast).toEqual(slow);
  return fast;
}

const cube = cubeModelXml();
const tricky: [string, string][] = [
  ['baseline', cube],
  ['single quotes, extra spaces, CRLF', cube.replace(/<vertex x="(\d+)" y="(\d+)" z="(\d+)"\/>/g, "\r\n  <vertex  x='$1'\ty='$2' z='$3' />")],
  ['vertex inside a comment is not read', cube.replace('<vertices>', '<vertices><!-- <vertex x="5" y="5" z="5"/> -- -->')],
  ['vertex inside CDATA is not read', cube.replace('<vertices>', '<vertices><![CDATA[<vertex x="5" y="5" z="5"/>]]>')],
  ['vertex inside an attribute value', cube.replace('<vertices>', '<vertices><metadata name="a&gt;" value=\'<vertex x="5" y="5" z="5"/>\'/>')],
  ['processing instruction', cube.replace('<vertices>', '<vertices><?pi <vertex x="5" y="5" z="5"/> ?>')],
  ['DOCTYPE after the vertices', cube.replace('<triangles>', '<!DOCTYPE x><triangles>')],
  ['entity in a coordinate', cube.replace('x="10" y="0" z="0"', 'x="1&#48;" y="0" z="0"')],
  ['undefined entity in a coordinate', cube.replace('x="10" y="0" z="0"', 'x="&ten;" y="0" z="0"')],
  ['less-than in a value', cube.replace('x="10" y="0" z="0"', 'x="<10" y="0" z="0"')],
  ['duplicate attribute', cube.replace('x="10" y="0" z="0"', 'x="10" x="10" y="0" z="0"')],
  ['missing attribute', cube.replace('x="10" y="0" z="0"', 'x="10" y="0"')],
  ['empty coordinate', cube.replace('x="10" y="0" z="0"', 'x="" y="0" z="0"')],
  ['long and odd numbers', cube.replace('x="10" y="0" z="0"', 'x="10.000000000000000000001" y="-0" z="1e-3"').replace('x="0" y="10" z="0"', 'x="+0.1E1" y="1.e1" z=".5"')],
  ['hex and junk numbers', cube.replace('x="10" y="0" z="0"', 'x="0x10" y="0" z="0"')],
  ['non-self-closing vertex', cube.replace('<vertex x="10" y="0" z="0"/>', '<vertex x="10" y="0" z="0"></vertex>')],
  ['extra vertex attribute', cube.replace('x="10" y="0" z="0"', 'x="10" y="0" z="0" w="1"')],
  ['prefixed vertex', cube.replace('<vertex x="10" y="0" z="0"/>', '<m:vertex x="10" y="0" z="0"/>')],
  ['no space between attributes', cube.replace('x="10" y="0" z="0"', 'x="10"y="0" z="0"')],
  ['triangle with properties', cube.replace(/<triangle v1="(\d+)" v2="(\d+)" v3="(\d+)"\/>/g, '<triangle v1="$1" v2="$2" v3="$3" pid="1" p1="0" p2=\'1\' p3="2"/>')],
  ['triangle out of range', cube.replace('v1="0" v2="2" v3="1"', 'v1="0" v2="2" v3="8"')],
  ['triangle with a float index', cube.replace('v1="0" v2="2" v3="1"', 'v1="0" v2="2.0" v3="1"')],
  ['triangle with leading zeros', cube.replace('v1="0" v2="2" v3="1"', 'v1="000" v2="02" v3="1"')],
  ['triangle before any vertex', cube.replace('<vertices>', '<triangles><triangle v1="0" v2="0" v3="0"/></triangles><vertices>')],
  ['vertex outside a mesh', cube.replace('<resources>', '<resources><vertex x="1" y="2" z="3"/>')],
  ['unclosed vertex at the end', cube.replace('</vertices>', '<vertex x="1" y="2"')],
  ['text between vertices', cube.replace('<vertex x="10" y="0" z="0"/>', 'junk<vertex x="10" y="0" z="0"/>more')],
  ['control character in text', cube.replace('<vertex x="10" y="0" z="0"/>', '\u0001<vertex x="10" y="0" z="0"/>')],
];

describe('3MF fast XML path gives exactly what saxes alone gives', () => {
  for (const [name, xml] of tricky) {
    it(name, async () => {
      await expectSameAsSaxes(make3mf(xml));
    });
  }

  for (const file of ['3dbenchy.3mf', '3mfs-cube_gears.3mf', 'lib3mf-holed_cube_support.3mf', '3mfs-box_prod.3mf', '3mfs-components.3mf', 'lib3mf-globo.3mf']) {
    it(`corpus ${file}`, async () => {
      const r = await expectSameAsSaxes(new Uint8Array(readFileSync(DIR + file)));
      expect(r.ok).toBe(true);
    }, 60_000);
  }

  it(`mutated model XML (${Math.min(RUNS, 1000)} runs)`, async () => {
    const tokens = ['<', '>', '/', '"', "'", '=', ' ', '&x;', '&#48;', '<!--', '-->', '<![CDATA[', ']]>', '<?', '?>', '<!DOCTYPE a>', 'e', '.', '-', '0', '99', 'x', 'v1', '<vertex x="1" y="2" z="3"/>', '<triangle v1="0" v2="1" v3="2"/>'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ at: fc.nat(), token: fc.constantFrom(...tokens), del: fc.integer({ min: 0, max: 8 }) }), { minLength: 1, maxLength: 4 }), async (muts) => {
        let xml = cube;
        for (const m of muts) {
          const at = m.at % (xml.length + 1);
          xml = xml.slice(0, at) + m.token + xml.slice(at + m.del);
        }
        await expectSameAsSaxes(make3mf(xml));
      }),
      { numRuns: Math.min(RUNS, 1000), seed: 20261121 },
    );
  }, 120_000);
});

describe('FastModelFilter is independent of chunk boundaries', () => {
  // Whitespace between taken elements may be dropped or passed on depending on where a chunk
  // ends (both are harmless); positions are therefore counted in non-whitespace characters.
  function run(text: string, chunk: number): string {
    const events: string[] = [];
    let passed = '';
    const dec = new TextDecoder();
    const f = new FastModelFilter({
      acceptsVertex: () => true,
      acceptsTriangle: () => true,
      vertex: (x, y, z) => events.push(`${passed.replace(/\s+/g, '').length}:V${x},${y},${z}`),
      triangle: (a, b, c) => events.push(`${passed.replace(/\s+/g, '').length}:T${a},${b},${c}`),
      pass: (bytes) => {
        passed += dec.decode(bytes, { stream: true });
      },
    });
    const bytes = new TextEncoder().encode(text);
    for (let i = 0; i < bytes.length; i += chunk) f.write(bytes.subarray(i, i + chunk));
    f.end();
    return `${events.join(' ')}|${passed.replace(/\s+/g, '')}`;
  }
  const docs = [cube, ...tricky.map(([, x]) => x), `${cube}<!-- a -- b --->`, 'é<vertex x="1" y="2" z="3"/>ü<!--x-->--><vertex x="4" y="5" z="6"/>'];
  it('chunks of 1, 2, 3, 5, 8, 13 and 64 bytes give the same events as one chunk', () => {
    for (const d of docs) {
      const whole = run(d, 1 << 30);
      for (const c of [1, 2, 3, 5, 8, 13, 64]) expect(run(d, c)).toBe(whole);
    }
  });
  it('large chunks (an element cut at a chunk boundary is finished on a joined head)', () => {
    const parts: string[] = ['<model><mesh><vertices>'];
    for (let i = 0; i < 3000; i++) {
      const v = `<vertex x="${i * 0.125}" y="-${i}.5e-1" z="${(i * 1.1).toPrecision(17)}"/>`;
      parts.push(i % 97 === 0 ? `<!-- ${v} -->` : i % 89 === 0 ? `<b a='${v}'>${v}</b>` : i % 7 === 0 ? `\r\n\t${v}` : v);
    }
    parts.push('</vertices><triangles>');
    for (let i = 0; i < 3000; i++) parts.push(`<triangle v1="${i}" v2="${i + 1}" v3="${i + 2}"${i % 5 === 0 ? ' pid="1" p1="2"' : ''}/>\n`);
    parts.push('</triangles></mesh></model>');
    const big = parts.join('');
    const whole = run(big, 1 << 30);
    expect(whole.split(':V').length - 1).toBe(3000 - 31); // the 31 in comments are not taken
    for (const c of [100, 2047, 2048, 2049, 2100, 3001, 4096, 65536]) expect(run(big, c)).toBe(whole);
    const withDoctype = big.replace('<vertex x="1000', '<!DOCTYPE x><vertex x="1000');
    const w2 = run(withDoctype, 1 << 30);
    for (const c of [2049, 3001, 4096]) expect(run(withDoctype, c)).toBe(w2);
  });

  it('never reads inside comments, CDATA, PIs or attribute values', () => {
    expect(run('<a><!-- <vertex x="1" y="2" z="3"/> --><![CDATA[<vertex x="1" y="2" z="3"/>]]><?p <vertex x="1" y="2" z="3"/>?><b c=\'<vertex x="1" y="2" z="3"/>\'/></a>', 1 << 30)).not.toContain('V1');
  });
  it('stops at a DOCTYPE', () => {
    expect(run('<!DOCTYPE a><vertex x="1" y="2" z="3"/>', 1 << 30)).not.toContain('V1');
  });
  it('an element cut right after a quote at the very end of the run reader\'s memory is carried, not read past', () => {
    // The run reader copies a chunk's rest from its first vertex on behind 96 KiB of output
    // space; a chunk of 32 KiB that starts with a vertex fills its memory to the last byte of
    // a 64 KiB page.
    const lead = '<vertex x="0" y="0" z="0"/>';
    const cut = '<vertex x="1" y="2" z="';
    for (const size of [32_768, 32_768 + 65_536]) {
      const first = lead + ' '.repeat(size - lead.length - cut.length) + cut;
      expect(first.length).toBe(size);
      const doc = first + '3"/><vertex x="4" y="5" z="6"/>';
      expect(run(doc, size)).toBe(run(doc, 1 << 30));
      expect(run(doc, size)).toContain('V1,2,3 ');
    }
  });
});
