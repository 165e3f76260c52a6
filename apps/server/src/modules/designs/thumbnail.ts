import zlib from 'node:zlib';

/**
 * Renders a small shaded picture of a mesh (isometric-ish view from the front right, above) as a
 * PNG, without a GPU or a browser: a z-buffered software rasteriser over the triangles. Fast enough
 * for the largest models we accept (every triangle is touched once).
 */
const FILL = [249, 115, 22]; // brand orange
const VIEW_YAW = (-35 * Math.PI) / 180;
const VIEW_PITCH = (30 * Math.PI) / 180;
const LIGHT = normalise([-0.4, 0.5, 0.75]);

export function renderThumbnail(positions: Float32Array, indices: Uint32Array, size = 256): Buffer {
  const vertexCount = positions.length / 3;
  const sx = new Float32Array(vertexCount);
  const sy = new Float32Array(vertexCount);
  const sz = new Float32Array(vertexCount);
  const cy = Math.cos(VIEW_YAW);
  const syaw = Math.sin(VIEW_YAW);
  const cp = Math.cos(VIEW_PITCH);
  const sp = Math.sin(VIEW_PITCH);
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < vertexCount; i++) {
    const x = positions[i * 3]!;
    const y = positions[i * 3 + 1]!;
    const z = positions[i * 3 + 2]!;
    // Yaw about Z, then pitch about X: screen x right, screen y up, depth towards the viewer.
    const x1 = x * cy - y * syaw;
    const y1 = x * syaw + y * cy;
    const y2 = y1 * cp - z * sp;
    const z2 = y1 * sp + z * cp;
    sx[i] = x1;
    sy[i] = z2;
    sz[i] = -y2;
    if (x1 < minX) minX = x1;
    if (x1 > maxX) maxX = x1;
    if (z2 < minY) minY = z2;
    if (z2 > maxY) maxY = z2;
  }
  const pixels = Buffer.alloc(size * size * 4); // transparent
  if (vertexCount === 0 || !Number.isFinite(minX)) return encodePng(pixels, size);
  const margin = size * 0.08;
  const scale = (size - 2 * margin) / Math.max(maxX - minX, maxY - minY, 1e-9);
  const offsetX = (size - (maxX - minX) * scale) / 2;
  const offsetY = (size - (maxY - minY) * scale) / 2;
  for (let i = 0; i < vertexCount; i++) {
    sx[i] = (sx[i]! - minX) * scale + offsetX;
    sy[i] = size - ((sy[i]! - minY) * scale + offsetY);
  }
  const depth = new Float32Array(size * size).fill(-Infinity);
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t]!;
    const b = indices[t + 1]!;
    const c = indices[t + 2]!;
    const shade = shadeOf(positions, a, b, c);
    rasterise(sx, sy, sz, a, b, c, size, depth, pixels, shade);
  }
  return encodePng(pixels, size);
}

function shadeOf(p: Float32Array, a: number, b: number, c: number): number {
  const ux = p[b * 3]! - p[a * 3]!;
  const uy = p[b * 3 + 1]! - p[a * 3 + 1]!;
  const uz = p[b * 3 + 2]! - p[a * 3 + 2]!;
  const vx = p[c * 3]! - p[a * 3]!;
  const vy = p[c * 3 + 1]! - p[a * 3 + 1]!;
  const vz = p[c * 3 + 2]! - p[a * 3 + 2]!;
  const n = normalise([uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx]);
  // Windings are not always consistent in uploaded files: light both sides alike.
  const diffuse = Math.abs(n[0] * LIGHT[0] + n[1] * LIGHT[1] + n[2] * LIGHT[2]);
  return 0.35 + 0.65 * diffuse;
}

function rasterise(
  sx: Float32Array,
  sy: Float32Array,
  sz: Float32Array,
  a: number,
  b: number,
  c: number,
  size: number,
  depth: Float32Array,
  pixels: Buffer,
  shade: number,
): void {
  const ax = sx[a]!, ay = sy[a]!, bx = sx[b]!, by = sy[b]!, cx = sx[c]!, cyy = sy[c]!;
  const area = (bx - ax) * (cyy - ay) - (by - ay) * (cx - ax);
  if (area === 0) return;
  const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
  const x1 = Math.min(size - 1, Math.ceil(Math.max(ax, bx, cx)));
  const y0 = Math.max(0, Math.floor(Math.min(ay, by, cyy)));
  const y1 = Math.min(size - 1, Math.ceil(Math.max(ay, by, cyy)));
  const za = sz[a]!, zb = sz[b]!, zc = sz[c]!;
  for (let y = y0; y <= y1; y++) {
    const py = y + 0.5;
    for (let x = x0; x <= x1; x++) {
      const px = x + 0.5;
      const w0 = ((bx - px) * (cyy - py) - (by - py) * (cx - px)) / area;
      const w1 = ((cx - px) * (ay - py) - (cyy - py) * (ax - px)) / area;
      const w2 = 1 - w0 - w1;
      if (w0 < 0 || w1 < 0 || w2 < 0) continue;
      const z = w0 * za + w1 * zb + w2 * zc;
      const at = y * size + x;
      if (z <= depth[at]!) continue;
      depth[at] = z;
      pixels[at * 4] = Math.round(FILL[0]! * shade);
      pixels[at * 4 + 1] = Math.round(FILL[1]! * shade);
      pixels[at * 4 + 2] = Math.round(FILL[2]! * shade);
      pixels[at * 4 + 3] = 255;
    }
  }
}

function normalise(v: number[]): [number, number, number] {
  const length = Math.hypot(v[0]!, v[1]!, v[2]!) || 1;
  return [v[0]! / length, v[1]! / length, v[2]! / length];
}

/** A minimal RGBA PNG: signature, IHDR, one zlib IDAT with filter byte 0 per row, IEND. */
export function encodePng(rgba: Buffer, size: number): Buffer {
  const rows = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
