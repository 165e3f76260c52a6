import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { analyzeModel, MESH_LIMITS, sniffFormat } from './index.ts';
import { boxStl, CONTENT_TYPES, cubeModelXml, make3mf, makeZip, RELS } from './testing/zip-writer.ts';

async function rejects(bytes: Uint8Array, code: string, fileName = 'x.3mf', maxMs = 1000): Promise<void> {
  const t = performance.now();
  await expect(analyzeModel(bytes, { fileName })).rejects.toMatchObject({ name: 'MeshError', code });
  expect(performance.now() - t).toBeLessThan(maxMs);
}

describe('hostile 3MF archives are refused before or while inflating', () => {
  it('accepts the well-formed baseline', async () => {
    const a = await analyzeModel(make3mf(cubeModelXml()));
    expect(a.volumeMm3).toBeCloseTo(1000, 6);
  });

  it('zip bomb: an entry declaring 1 GiB unpacked', async () => {
    await rejects(make3mf(cubeModelXml(), [{ name: 'Metadata/big.bin', data: new Uint8Array(1024), declaredSize: 1024 ** 3 }]), 'zip-bomb');
  });

  it('lying headers: declares 1,000 bytes, inflates to 32 MiB', async () => {
    const zeros = new Uint8Array(32 * 1024 * 1024);
    const xml = Buffer.concat([Buffer.from(cubeModelXml().replace('</model>', '<!--')), Buffer.from(zeros), Buffer.from('--></model>')]);
    const zip = makeZip([
      { name: '[Content_Types].xml', data: CONTENT_TYPES },
      { name: '_rels/.rels', data: RELS },
      { name: '3D/3dmodel.model', data: xml, declaredSize: 1000 },
    ]);
    expect(zip.length).toBeLessThan(200_000);
    await rejects(zip, 'zip-bomb');
  });

  it(`more than ${MESH_LIMITS.maxZipEntries} entries (20,000)`, async () => {
    const entries = Array.from({ length: 20_000 }, (_, i) => ({ name: `f${i}.txt`, data: '', store: true }));
    await rejects(makeZip(entries), 'zip-bomb');
  });

  it('an entry compressing 1000:1', async () => {
    const zeros = new Uint8Array(8 * 1024 * 1024);
    expect(zeros.length / deflateRawSync(zeros).length).toBeGreaterThan(500);
    await rejects(make3mf(cubeModelXml(), [{ name: 'Metadata/zeros.bin', data: zeros }]), 'zip-bomb');
  });

  for (const name of ['../../evil.model', '/etc/evil.model', 'C:\\evil.model', 'a\\..\\..\\evil.model', '3D/../../evil']) {
    it(`path traversal name ${JSON.stringify(name)}`, async () => {
      await rejects(make3mf(cubeModelXml(), [{ name, data: 'x' }]), 'unsafe-archive');
    });
  }

  it('a nested zip', async () => {
    await rejects(make3mf(cubeModelXml(), [{ name: 'Metadata/inner.zip', data: make3mf(cubeModelXml()), store: true }]), 'unsafe-archive');
  });

  it('XXE: SYSTEM entity pointing at /etc/passwd', async () => {
    const xml = cubeModelXml('<!DOCTYPE model [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>').replace('<resources>', '<metadata name="x">&xxe;</metadata><resources>');
    await rejects(make3mf(xml), 'xml-entity', 'x.3mf', 500);
  });

  it('XXE without DOCTYPE: an undefined entity reference', async () => {
    await rejects(make3mf(cubeModelXml().replace('<resources>', '<metadata name="x">&xxe;</metadata><resources>')), 'xml-entity', 'x.3mf', 500);
  });

  it('billion laughs', async () => {
    let dtd = '<!DOCTYPE model [<!ENTITY lol "lol">';
    for (let i = 1; i <= 9; i++) dtd += `<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`;
    dtd += ']>';
    await rejects(make3mf(cubeModelXml(dtd).replace('<resources>', '<metadata name="x">&lol9;</metadata><resources>')), 'xml-entity', 'x.3mf', 500);
  });

  it('10,000-deep nesting', async () => {
    // Varied tag names keep the entry under the ratio cap so the depth limit is what trips.
    const names = Array.from({ length: 10_000 }, (_, i) => `e${(i * 7919) % 10007}`);
    const deep = names.map((n) => `<${n}>`).join('') + [...names].reverse().map((n) => `</${n}>`).join('');
    await rejects(make3mf(cubeModelXml().replace('<resources>', `<metadata name="x">${deep}</metadata><resources>`)), 'xml-too-deep', 'x.3mf', 500);
  });

  it('components that multiply like entities (10^10 triangles)', async () => {
    let objs = '';
    for (let level = 2; level <= 11; level++) {
      objs += `<object id="${level}" type="model"><components>${`<component objectid="${level - 1}"/>`.repeat(10)}</components></object>`;
    }
    const xml = cubeModelXml().replace('</resources>', objs + '</resources>').replace('<item objectid="1"/>', '<item objectid="11"/>');
    await rejects(make3mf(xml), 'too-many-triangles');
  });

  it('a component cycle', async () => {
    const xml = cubeModelXml()
      .replace('</resources>', '<object id="2"><components><component objectid="3"/></components></object><object id="3"><components><component objectid="2"/></components></object></resources>')
      .replace('<item objectid="1"/>', '<item objectid="2"/>');
    await rejects(make3mf(xml), 'malformed');
  });

  it('missing [Content_Types].xml or model part', async () => {
    await rejects(makeZip([{ name: '_rels/.rels', data: RELS }, { name: '3D/3dmodel.model', data: cubeModelXml() }]), 'malformed');
    await rejects(makeZip([{ name: '[Content_Types].xml', data: CONTENT_TYPES }]), 'malformed');
  });

  it('a vertex without coordinates (CVE-2021-45847 shape)', async () => {
    await rejects(make3mf(cubeModelXml().replace('<vertex x="0" y="0" z="0"/>', '<vertex/>')), 'malformed');
  });

  it('a triangle pointing past the vertices', async () => {
    await rejects(make3mf(cubeModelXml().replace('v1="0" v2="2" v3="1"', 'v1="0" v2="2" v3="99"')), 'malformed');
  });
});

describe('content sniffing ignores the file name', () => {
  const pe = new Uint8Array(84 + 50 * 2);
  pe.set(Buffer.from('MZ\x90\x00'), 0);
  new DataView(pe.buffer).setUint32(80, 2, true); // a "valid" STL size cannot save it
  const cases: [string, Uint8Array, string][] = [
    ['PE renamed .stl', pe, 'unsupported-format'],
    ['HTML renamed .stl', new Uint8Array(Buffer.from('<!DOCTYPE html><html><body>hi</body></html>')), 'unsupported-format'],
    ['SVG renamed .obj', new Uint8Array(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>')), 'unsupported-format'],
    ['HTML renamed .3mf', new Uint8Array(Buffer.from('  <html></html>')), 'unsupported-format'],
    ['JavaScript renamed .obj', new Uint8Array(Buffer.from('function f() { return 1 }\n')), 'unsupported-format'],
    ['PNG renamed .3mf', new Uint8Array(Buffer.from('\x89PNG\r\n\x1a\n0000000000', 'latin1')), 'unsupported-format'],
    ['ASCII STL with garbage', new Uint8Array(Buffer.from('solid x\n facet normal 0 0 1\n outer loop\n vertex 1 2 banana\n')), 'malformed'],
    ['ASCII STL that is only a word', new Uint8Array(Buffer.from('solid but this is prose, not a model')), 'malformed'],
    ['0-byte file', new Uint8Array(0), 'empty'],
  ];
  for (const [name, bytes, code] of cases) {
    const ext = name.split('.').pop()!.slice(0, 3);
    it(name, async () => {
      await rejects(bytes, code, `model.${ext}`);
      if (code !== 'malformed') expect(sniffFormat(bytes)).toBeNull();
    });
  }

  it('binary STL whose size is not 84 + 50n', async () => {
    const stl = boxStl(10, 10, 10);
    const cut = Buffer.concat([Buffer.from(stl), Buffer.from([1, 2, 3])]);
    await rejects(new Uint8Array(cut), 'malformed', 'box.stl');
    await rejects(stl.subarray(0, stl.length - 50), 'malformed', 'box.stl');
  });

  it('over the size limit before any parsing', async () => {
    const fake = { length: MESH_LIMITS.maxFileBytes + 1 } as Uint8Array;
    await rejects(fake, 'too-large', 'big.stl');
  });
});
