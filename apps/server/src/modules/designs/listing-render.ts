/**
 * Product pictures for marketplace listings (issue 24, point 5; docs/listing-images.md): the model
 * drawn in its print colour from one angle on a neutral background, as raw RGB pixels for sharp to
 * encode. A software rasteriser — triangles into a z-buffer with flat Lambert shading — so no GPU,
 * browser or native renderer is needed, and the picture is made from the very triangles the farm
 * slices. Pure: no I/O, no clock.
 */

export interface ListingView {
  /** Turn about the vertical (Z) axis, degrees: 0 looks at the model's front (from -Y), 90 its right side. */
  readonly yawDeg: number;
  /** Camera elevation, degrees above the horizon. */
  readonly pitchDeg: number;
}

export interface ListingRenderOptions {
  readonly sizePx: number;
  /** The print colour, 0-255 per channel. */
  readonly colour: readonly [number, number, number];
}

/** Light from the camera's upper left (a key light) and a weaker one from the right (fill), in view space. */
const KEY_LIGHT = normalise([-0.45, 0.55, 0.7]);
const FILL_LIGHT = normalise([0.7, -0.1, 0.7]);
const AMBIENT = 0.28;
const KEY = 0.62;
const FILL = 0.2;
/** The backdrop: a soft vertical gradient of light greys, like a photo sweep. */
const BACKDROP_TOP = [248, 248, 247];
const BACKDROP_BOTTOM = [226, 226, 224];
/** Space left around the model, as a share of the picture's side. */
const MARGIN = 0.09;

/** Parses '#rrggbb' or '#rgb'; anything else draws in a neutral grey. */
export function colourOf(hex: string): [number, number, number] {
  const match = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(hex.trim());
  if (!match) return [160, 160, 160];
  const digits = match[1]!.length === 3 ? [...match[1]!].map((d) => d + d).join('') : match[1]!;
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as [number, number, number];
}

/** Draws the mesh from `view`: sizePx × sizePx × 3 bytes of RGB, rows top to bottom. */
export function renderListingView(positions: Float32Array, indices: Uint32Array, view: ListingView, options: ListingRenderOptions): Uint8Array {
  const size = options.sizePx;
  const pixels = new Uint8Array(size * size * 3);
  paintBackdrop(pixels, size);
  const vertexCount = positions.length / 3;
  if (vertexCount === 0 || indices.length === 0) return pixels;

  // View space: x right, y up, z towards the camera. Yaw about the model's Z, then pitch.
  const yaw = (view.yawDeg * Math.PI) / 180;
  const pitch = (view.pitchDeg * Math.PI) / 180;
  const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
  const vx = new Float32Array(vertexCount);
  const vy = new Float32Array(vertexCount);
  const vz = new Float32Array(vertexCount);
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (let i = 0; i < vertexCount; i++) {
    const x = positions[i * 3]!, y = positions[i * 3 + 1]!, z = positions[i * 3 + 2]!;
    const x1 = x * cy + y * sy; // the model turned so the camera, on -Y, sees the requested side
    const y1 = -x * sy + y * cy; // depth away from the camera before pitching
    const up = z * cp + y1 * sp;
    const depth = -y1 * cp + z * sp; // towards the camera
    vx[i] = x1;
    vy[i] = up;
    vz[i] = depth;
    if (x1 < minX) minX = x1;
    if (x1 > maxX) maxX = x1;
    if (up < minY) minY = up;
    if (up > maxY) maxY = up;
  }
  const span = Math.max(maxX - minX, maxY - minY, 1e-9);
  const scale = (size * (1 - 2 * MARGIN)) / span;
  const offsetX = (size - (maxX - minX) * scale) / 2;
  const offsetY = (size - (maxY - minY) * scale) / 2;
  // Screen coordinates: pixel centres at +0.5, y downwards.
  const px = new Float32Array(vertexCount);
  const py = new Float32Array(vertexCount);
  for (let i = 0; i < vertexCount; i++) {
    px[i] = (vx[i]! - minX) * scale + offsetX;
    py[i] = size - ((vy[i]! - minY) * scale + offsetY);
  }

  const depthBuffer = new Float32Array(size * size).fill(-Infinity);
  const [r, g, b] = options.colour;
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t]!, c1 = indices[t + 1]!, c2 = indices[t + 2]!;
    // The face's normal in view space, turned to face the camera (a file's winding is not trusted).
    const ux = vx[c1]! - vx[a]!, uy = vy[c1]! - vy[a]!, uz = vz[c1]! - vz[a]!;
    const wx = vx[c2]! - vx[a]!, wy = vy[c2]! - vy[a]!, wz = vz[c2]! - vz[a]!;
    let nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
    const length = Math.hypot(nx, ny, nz);
    if (length === 0) continue;
    const flip = nz < 0 ? -1 / length : 1 / length;
    nx *= flip;
    ny *= flip;
    nz *= flip;
    const light =
      AMBIENT +
      KEY * Math.max(0, nx * KEY_LIGHT[0]! + ny * KEY_LIGHT[1]! + nz * KEY_LIGHT[2]!) +
      FILL * Math.max(0, nx * FILL_LIGHT[0]! + ny * FILL_LIGHT[1]! + nz * FILL_LIGHT[2]!);
    const shade = Math.min(1.15, light);
    fillTriangle(px, py, vz, a, c1, c2, size, depthBuffer, pixels, Math.min(255, r * shade), Math.min(255, g * shade), Math.min(255, b * shade));
  }
  softenSilhouette(pixels, depthBuffer, size);
  return pixels;
}

/**
 * Without anti-aliasing the outline against the backdrop is a staircase, the first thing a buyer's
 * eye finds on a white listing. Supersampling would cost four times the time and memory; instead
 * each pixel on the silhouette (drawn beside undrawn) becomes the mean of its 3 × 3 neighbourhood,
 * which softens the outline by a pixel and leaves the inside of the model sharp.
 */
function softenSilhouette(pixels: Uint8Array, depth: Float32Array, size: number): void {
  const source = pixels.slice();
  for (let y = 1; y < size - 1; y++) {
    for (let x = 1; x < size - 1; x++) {
      const at = y * size + x;
      const drawn = depth[at] !== -Infinity;
      if (
        drawn === (depth[at - 1] !== -Infinity) &&
        drawn === (depth[at + 1] !== -Infinity) &&
        drawn === (depth[at - size] !== -Infinity) &&
        drawn === (depth[at + size] !== -Infinity)
      ) continue;
      for (let channel = 0; channel < 3; channel++) {
        let sum = 0;
        for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) sum += source[((y + dy) * size + x + dx) * 3 + channel]!;
        pixels[at * 3 + channel] = sum / 9;
      }
    }
  }
}

function paintBackdrop(pixels: Uint8Array, size: number): void {
  for (let y = 0; y < size; y++) {
    const f = y / Math.max(1, size - 1);
    const r = BACKDROP_TOP[0]! + (BACKDROP_BOTTOM[0]! - BACKDROP_TOP[0]!) * f;
    const g = BACKDROP_TOP[1]! + (BACKDROP_BOTTOM[1]! - BACKDROP_TOP[1]!) * f;
    const b = BACKDROP_TOP[2]! + (BACKDROP_BOTTOM[2]! - BACKDROP_TOP[2]!) * f;
    const row = y * size * 3;
    pixels[row] = r;
    pixels[row + 1] = g;
    pixels[row + 2] = b;
    // Doubling copies: a row of 2000 pixels in 11 copies instead of 2000 writes.
    for (let filled = 3; filled < size * 3; filled *= 2) pixels.copyWithin(row + filled, row, row + Math.min(filled, size * 3 - filled));
  }
}

/** Edge functions over the triangle's bounding box; depth interpolated barycentrically, nearest wins. */
function fillTriangle(
  px: Float32Array, py: Float32Array, pz: Float32Array,
  a: number, b: number, c: number,
  size: number, depth: Float32Array, pixels: Uint8Array,
  r: number, g: number, bl: number,
): void {
  const ax = px[a]!, ay = py[a]!, bx = px[b]!, by = py[b]!, cx = px[c]!, cy = py[c]!;
  const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  if (area === 0) return;
  const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
  const x1 = Math.min(size - 1, Math.ceil(Math.max(ax, bx, cx)));
  const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
  const y1 = Math.min(size - 1, Math.ceil(Math.max(ay, by, cy)));
  const inv = 1 / area;
  const az = pz[a]!, bz = pz[b]!, cz = pz[c]!;
  for (let y = y0; y <= y1; y++) {
    const sy = y + 0.5;
    for (let x = x0; x <= x1; x++) {
      const sx = x + 0.5;
      const w0 = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) * inv;
      const w1 = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) * inv;
      const w2 = 1 - w0 - w1;
      if (w0 < 0 || w1 < 0 || w2 < 0) continue;
      const z = w0 * az + w1 * bz + w2 * cz;
      const at = y * size + x;
      if (z <= depth[at]!) continue;
      depth[at] = z;
      const p = at * 3;
      pixels[p] = r;
      pixels[p + 1] = g;
      pixels[p + 2] = bl;
    }
  }
}

function normalise(v: [number, number, number]): [number, number, number] {
  const length = Math.hypot(...v);
  return [v[0] / length, v[1] / length, v[2] / length];
}
