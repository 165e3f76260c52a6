/**
 * Cuts an object's triangles with horizontal planes into oriented segments, bucketed
 * per layer (two passes: count, then fill, so no per-segment objects or resizing).
 * Segments keep the solid on their left when seen from above, which the nonzero
 * rasteriser relies on.
 */
export interface LayerSegments {
  /** Segment k of layer L is segs[4k..4k+3] = x0,y0,x1,y1 for k in [offsets[L], offsets[L+1]). */
  offsets: Uint32Array;
  segs: Float32Array;
  /** Sum of segment lengths per layer (outline length, mm). */
  outline: Float64Array;
}

export function sliceTriangles(
  p: Float32Array,
  idx: Uint32Array,
  t0: number,
  t1: number,
  z0: number,
  firstPlane: number,
  step: number,
  layers: number,
  wanted?: Uint8Array,
): LayerSegments {
  const counts = new Uint32Array(layers + 1);
  // With `wanted`, only those planes are cut: nextWanted[k] is the first wanted plane >= k, so a
  // triangle costs its wanted cuts, not every plane it spans.
  const nextWanted = new Int32Array(layers + 1);
  nextWanted[layers] = layers;
  for (let k = layers - 1; k >= 0; k--) nextWanted[k] = !wanted || wanted[k] ? k : nextWanted[k + 1]!;
  // Planes with zlo <= z_k < zhi: a vertex counts as above only when z > z_k, so such a
  // plane always has vertices on both sides and yields exactly one segment. The range is
  // returned in these two variables (no per-triangle array).
  let rk0 = 0,
    rk1 = 0;
  const planeIndexRange = (zlo: number, zhi: number): void => {
    let k0 = Math.ceil((zlo - z0 - firstPlane) / step);
    let k1 = Math.floor((zhi - z0 - firstPlane) / step);
    while (k0 > 0 && z0 + firstPlane + (k0 - 1) * step >= zlo) k0--;
    while (z0 + firstPlane + k0 * step < zlo) k0++;
    while (k1 >= k0 && z0 + firstPlane + k1 * step >= zhi) k1--;
    rk0 = Math.max(0, k0);
    rk1 = Math.min(layers - 1, k1);
  };
  for (let t = t0; t < t1; t++) {
    const za = p[idx[t * 3]! * 3 + 2]!,
      zb = p[idx[t * 3 + 1]! * 3 + 2]!,
      zc = p[idx[t * 3 + 2]! * 3 + 2]!;
    const zlo = Math.min(za, zb, zc),
      zhi = Math.max(za, zb, zc);
    if (zhi <= zlo) continue;
    planeIndexRange(zlo, zhi);
    for (let k = nextWanted[Math.min(rk0, layers)]!; k <= rk1; k = nextWanted[k + 1]!) counts[k + 1]!++;
  }
  for (let k = 0; k < layers; k++) counts[k + 1]! += counts[k]!;
  const offsets = counts;
  const fill = offsets.slice(0, layers);
  const segs = new Float32Array(offsets[layers]! * 4);
  const outline = new Float64Array(layers);
  for (let t = t0; t < t1; t++) {
    const ia = idx[t * 3]! * 3,
      ib = idx[t * 3 + 1]! * 3,
      ic = idx[t * 3 + 2]! * 3;
    const za = p[ia + 2]!,
      zb = p[ib + 2]!,
      zc = p[ic + 2]!;
    const zlo = Math.min(za, zb, zc),
      zhi = Math.max(za, zb, zc);
    if (zhi <= zlo) continue;
    planeIndexRange(zlo, zhi);
    const k0 = rk0,
      k1 = rk1;
    if (k1 < k0) continue;
    const ax = p[ia]!,
      ay = p[ia + 1]!,
      bx = p[ib]!,
      by = p[ib + 1]!,
      cx = p[ic]!,
      cy = p[ic + 1]!;
    // Horizontal part of the face normal decides the segment direction.
    const ux = bx - ax,
      uy = by - ay,
      uz = zb - za,
      vx = cx - ax,
      vy = cy - ay,
      vz = zc - za;
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz;
    for (let k = nextWanted[Math.min(k0, layers)]!; k <= k1; k = nextWanted[k + 1]!) {
      const zp = z0 + firstPlane + k * step;
      const aAbove = za > zp,
        bAbove = zb > zp,
        cAbove = zc > zp;
      // Pick the lone vertex (the one on its own side); the segment joins its two edges.
      let lx: number,
        ly: number,
        lz: number,
        px: number,
        py: number,
        pz: number,
        qx: number,
        qy: number,
        qz: number;
      if (aAbove !== bAbove && aAbove !== cAbove) {
        lx = ax;
        ly = ay;
        lz = za;
        px = bx;
        py = by;
        pz = zb;
        qx = cx;
        qy = cy;
        qz = zc;
      } else if (bAbove !== aAbove && bAbove !== cAbove) {
        lx = bx;
        ly = by;
        lz = zb;
        px = cx;
        py = cy;
        pz = zc;
        qx = ax;
        qy = ay;
        qz = za;
      } else {
        lx = cx;
        ly = cy;
        lz = zc;
        px = ax;
        py = ay;
        pz = za;
        qx = bx;
        qy = by;
        qz = zb;
      }
      const s = (zp - lz) / (pz - lz);
      const r = (zp - lz) / (qz - lz);
      const x0 = lx + (px - lx) * s;
      const y0 = ly + (py - ly) * s;
      const x1 = lx + (qx - lx) * r;
      const y1 = ly + (qy - ly) * r;
      const dx = x1 - x0,
        dy = y1 - y0;
      const o = fill[k]!++ * 4;
      if (dy * nx - dx * ny >= 0) {
        segs[o] = x0;
        segs[o + 1] = y0;
        segs[o + 2] = x1;
        segs[o + 3] = y1;
      } else {
        segs[o] = x1;
        segs[o + 1] = y1;
        segs[o + 2] = x0;
        segs[o + 3] = y0;
      }
      outline[k] = outline[k]! + Math.sqrt(dx * dx + dy * dy);
    }
  }
  return { offsets, segs, outline };
}

/**
 * How many segments sliceTriangles would make for these triangles and planes (the same plane
 * ranges, without allocating), so the estimate can refuse work before doing it.
 */
export function countCuts(
  p: Float32Array,
  idx: Uint32Array,
  t0: number,
  t1: number,
  z0: number,
  firstPlane: number,
  step: number,
  layers: number,
): number {
  let total = 0;
  for (let t = t0; t < t1; t++) {
    const za = p[idx[t * 3]! * 3 + 2]!,
      zb = p[idx[t * 3 + 1]! * 3 + 2]!,
      zc = p[idx[t * 3 + 2]! * 3 + 2]!;
    const zlo = Math.min(za, zb, zc),
      zhi = Math.max(za, zb, zc);
    if (zhi <= zlo) continue;
    let k0 = Math.ceil((zlo - z0 - firstPlane) / step);
    let k1 = Math.floor((zhi - z0 - firstPlane) / step);
    while (k0 > 0 && z0 + firstPlane + (k0 - 1) * step >= zlo) k0--;
    while (z0 + firstPlane + k0 * step < zlo) k0++;
    while (k1 >= k0 && z0 + firstPlane + k1 * step >= zhi) k1--;
    const n = Math.min(layers - 1, k1) - Math.max(0, k0) + 1;
    if (n > 0) total += n;
  }
  return total;
}
