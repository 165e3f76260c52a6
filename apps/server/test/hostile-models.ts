import { zip } from './zip.ts';

/**
 * Small generators for the model shapes that once took the machine (issue 10, finding 1), so
 * tests and the bench build them on the fly instead of committing big files.
 */

/** Binary STL from a flat list of triangles (9 numbers each). */
export function binaryStl(triangles: ArrayLike<number>): Uint8Array {
  const count = triangles.length / 9;
  const buf = Buffer.alloc(84 + 50 * count);
  buf.writeUInt32LE(count, 80);
  for (let t = 0; t < count; t++) {
    const o = 84 + 50 * t + 12;
    for (let k = 0; k < 9; k++) buf.writeFloatLE(triangles[t * 9 + k]!, o + k * 4);
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

/** 134 bytes: one triangle `heightMm` tall (the finding's was 1 km). */
export function oneTallTriangleStl(heightMm = 1_000_000): Uint8Array {
  return binaryStl([0, 0, 0, 10, 0, 0, 0, 0, heightMm]);
}

/** A closed w x d x h box (12 triangles). */
export function boxStl(w: number, d: number, h: number): Uint8Array {
  const v = [[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0], [0, 0, h], [w, 0, h], [w, d, h], [0, d, h]];
  const t = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]];
  return binaryStl(t.flatMap((tri) => tri.flatMap((i) => v[i]!)));
}

/**
 * A 3MF with one small tetrahedron (`sizeMm` = [x, y, z]) placed by `items` build items side by
 * side: the finding's was 2,000 tall items in 115 KB.
 */
export function manyItems3mf(items: number, sizeMm: [number, number, number]): Uint8Array {
  const [x, y, z] = sizeMm;
  const object =
    `<object id="1" type="model"><mesh><vertices><vertex x="0" y="0" z="0"/><vertex x="${x}" y="0" z="0"/><vertex x="0" y="${y}" z="0"/><vertex x="0" y="0" z="${z}"/></vertices>` +
    `<triangles><triangle v1="0" v2="2" v3="1"/><triangle v1="0" v2="1" v3="3"/><triangle v1="1" v2="2" v3="3"/><triangle v1="0" v2="3" v3="2"/></triangles></mesh></object>`;
  const build: string[] = [];
  for (let i = 0; i < items; i++) build.push(`<item objectid="1" transform="1 0 0 0 1 0 0 0 1 ${(i % 50) * (x + 1)} ${Math.floor(i / 50) * (y + 1)} 0"/>`);
  const model = `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources>${object}</resources><build>${build.join('')}</build></model>`;
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>',
    '3D/3dmodel.model': model,
  });
}

/**
 * A closed, watertight slab with a wavy top: an n x n grid on top and bottom plus the side walls,
 * 4n² + 8n triangles (n = 999 gives 3,999,996: the largest such slab under the 4M triangle cap,
 * a 200 MB binary STL, just under the 200 MiB upload limit). Written straight into the buffer.
 */
export function wavySlabStl(n: number, sizeMm = 200, heightMm = 20): Uint8Array {
  const count = 4 * n * n + 8 * n;
  const buf = Buffer.alloc(84 + 50 * count);
  buf.writeUInt32LE(count, 80);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
  let o = 84;
  const step = sizeMm / n;
  const top = (i: number, j: number) => heightMm * 0.75 + heightMm * 0.25 * Math.sin(i * 0.05) * Math.cos(j * 0.05);
  const tri = (a: number[], b: number[], c: number[]) => {
    o += 12;
    for (const p of [a, b, c]) for (let k = 0; k < 3; k++, o += 4) view.setFloat32(o, p[k]!, true);
    o += 2;
  };
  const T = (i: number, j: number) => [i * step, j * step, top(i, j)];
  const B = (i: number, j: number) => [i * step, j * step, 0];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      tri(T(i, j), T(i + 1, j), T(i + 1, j + 1));
      tri(T(i, j), T(i + 1, j + 1), T(i, j + 1));
      tri(B(i, j), B(i + 1, j + 1), B(i + 1, j));
      tri(B(i, j), B(i, j + 1), B(i + 1, j + 1));
    }
  }
  for (let k = 0; k < n; k++) {
    // Four walls, outward-facing.
    tri(B(k, 0), B(k + 1, 0), T(k + 1, 0));
    tri(B(k, 0), T(k + 1, 0), T(k, 0));
    tri(B(k + 1, n), B(k, n), T(k, n));
    tri(B(k + 1, n), T(k, n), T(k + 1, n));
    tri(B(0, k + 1), B(0, k), T(0, k));
    tri(B(0, k + 1), T(0, k), T(0, k + 1));
    tri(B(n, k), B(n, k + 1), T(n, k + 1));
    tri(B(n, k), T(n, k + 1), T(n, k));
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

/**
 * A closed cylinder of `n` tall slivers around (radius `r`, height `h`) with fan caps: 4n triangles,
 * 2n + 2 vertices. n = 1,000,000 gives exactly the 4M triangle cap in a 200 MB binary STL: valid,
 * within the build volume, but every sliver is cut by every layer plane (2M x 1,000 at 0.2 mm).
 */
export function sliverCylinderStl(n: number, r = 140, h = 200): Uint8Array {
  const count = 4 * n;
  const buf = Buffer.alloc(84 + 50 * count);
  buf.writeUInt32LE(count, 80);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
  let o = 84;
  const put = (x: number, y: number, z: number) => {
    view.setFloat32(o, x, true);
    view.setFloat32(o + 4, y, true);
    view.setFloat32(o + 8, z, true);
    o += 12;
  };
  for (let i = 0; i < n; i++) {
    const a0 = (2 * Math.PI * i) / n, a1 = (2 * Math.PI * ((i + 1) % n)) / n;
    const x0 = r * Math.cos(a0), y0 = r * Math.sin(a0), x1 = r * Math.cos(a1), y1 = r * Math.sin(a1);
    o += 12; put(x0, y0, 0); put(x1, y1, 0); put(x1, y1, h); o += 2;
    o += 12; put(x0, y0, 0); put(x1, y1, h); put(x0, y0, h); o += 2;
    o += 12; put(0, 0, 0); put(x1, y1, 0); put(x0, y0, 0); o += 2;
    o += 12; put(0, 0, h); put(x0, y0, h); put(x1, y1, h); o += 2;
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}
