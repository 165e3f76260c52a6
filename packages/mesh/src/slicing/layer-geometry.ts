/**
 * Exact figures of every layer of an object without slicing it layer by layer: the
 * cross-section's area and outline length at each layer plane, and the horizontal area of the
 * surface between consecutive planes (how much the cross-section changes from one layer to the
 * next). Each is a sum over triangles of a piecewise polynomial in z (a plane cuts a triangle
 * in a segment whose ends move linearly with z, so its length is linear, its shoelace term and
 * the area of the triangle below the plane quadratic), accumulated with difference arrays of
 * polynomial coefficients: O(triangles + layers), however many planes a triangle crosses.
 *
 * Planes follow sliceTriangles exactly: plane k is at z0 + firstPlane + k·step, and a triangle
 * is cut by the planes with zlo <= z < zhi (a vertex counts as above only when z > plane).
 */
export interface LayerGeometry {
  /** Cross-section area at each plane (mm², nonzero rule as the rasteriser reads the outline). */
  area: Float64Array;
  /** Outline length at each plane (mm): the sum of the segments sliceTriangles would make. */
  outline: Float64Array;
  /**
   * change[k] (k < layers - 1): horizontal area of the surface between planes k and k + 1
   * (mm²): 0 when every face crossing that slab is vertical, so layers k and k + 1 have the
   * same cross-section.
   */
  change: Float64Array;
  /**
   * Bounding box (minX, maxX, minY, maxY) of the faces crossing each block of BOX_BLOCK planes:
   * a bound on the windows of those layers, known before any of them is sliced.
   */
  boxes: Float64Array;
}

/** Planes per block of `boxes`. */
export const BOX_BLOCK = 8;

/**
 * Difference arrays of polynomial coefficients (c0 + c1·t + c2·t² on a range of planes),
 * three per plane and per quantity: area (twice the signed area), outline, and the projected
 * area of the faces at or below the plane.
 */
const AREA = 0,
  OUTLINE = 3,
  BELOW = 6,
  STRIDE = 9;

function addOn(d: Float64Array, q: number, k0: number, k1: number, c0: number, c1: number, c2: number): void {
  if (k1 < k0) return;
  const s = k0 * STRIDE + q,
    e = (k1 + 1) * STRIDE + q;
  d[s] = d[s]! + c0;
  d[s + 1] = d[s + 1]! + c1;
  d[s + 2] = d[s + 2]! + c2;
  d[e] = d[e]! - c0;
  d[e + 1] = d[e + 1]! - c1;
  d[e + 2] = d[e + 2]! - c2;
}

/**
 * One piece of a face (planes kFrom..kTo): the segment joins the edges l→p and l→q, both ends
 * moving away from the lone corner l (t = z - z0; the caller passes t-coordinates).
 */
function addPiece(
  d: Float64Array,
  kFrom: number,
  kTo: number,
  tm: number,
  nx: number,
  ny: number,
  lx: number,
  ly: number,
  lz: number,
  px: number,
  py: number,
  pz: number,
  qx: number,
  qy: number,
  qz: number,
  upper: boolean,
): void {
  // End points as functions of t: e(t) = l + (e - l)·(t - lz)/(ez - lz) = e0 + e1·t.
  const sp = 1 / (pz - lz),
    sq = 1 / (qz - lz);
  const p1x = (px - lx) * sp,
    p1y = (py - ly) * sp,
    p0x = lx - p1x * lz,
    p0y = ly - p1y * lz;
  const q1x = (qx - lx) * sq,
    q1y = (qy - ly) * sq,
    q0x = lx - q1x * lz,
    q0y = ly - q1y * lz;
  // The segment p→q keeps its direction within the piece; orient it as sliceTriangles does.
  const dx = q0x + q1x * tm - (p0x + p1x * tm),
    dy = q0y + q1y * tm - (p0y + p1y * tm);
  const sign = dy * nx - dx * ny >= 0 ? 1 : -1;
  // cross(p(t), q(t)) = p0×q0 + (p0×q1 + p1×q0)·t + p1×q1·t²
  addOn(
    d,
    AREA,
    kFrom,
    kTo,
    sign * (p0x * q0y - p0y * q0x),
    sign * (p0x * q1y - p0y * q1x + p1x * q0y - p1y * q0x),
    sign * (p1x * q1y - p1y * q1x),
  );
  // |q(t) - p(t)| = |t - lz|·|q1 - p1|, linear with a fixed sign within the piece.
  const ex = q1x - p1x,
    ey = q1y - p1y;
  const len = Math.sqrt(ex * ex + ey * ey);
  if (upper) addOn(d, OUTLINE, kFrom, kTo, len * lz, -len, 0);
  else addOn(d, OUTLINE, kFrom, kTo, -len * lz, len, 0);
}

export function layerGeometry(
  p: Float32Array,
  idx: Uint32Array,
  t0: number,
  t1: number,
  z0: number,
  firstPlane: number,
  step: number,
  layers: number,
): LayerGeometry {
  const d = new Float64Array((layers + 1) * STRIDE);
  const blocks = Math.ceil(layers / BOX_BLOCK);
  const boxes = new Float64Array(blocks * 4);
  for (let b = 0; b < blocks; b++) boxes.set([Infinity, -Infinity, Infinity, -Infinity], b * 4);
  // First plane index at or above the absolute height z, with sliceTriangles' own arithmetic.
  const firstAtOrAbove = (z: number): number => {
    let k = Math.ceil((z - z0 - firstPlane) / step);
    while (k > 0 && z0 + firstPlane + (k - 1) * step >= z) k--;
    while (z0 + firstPlane + k * step < z) k++;
    return k < 0 ? 0 : k;
  };
  const last = layers - 1;
  for (let t = t0; t < t1; t++) {
    const i0 = idx[t * 3]! * 3,
      i1 = idx[t * 3 + 1]! * 3,
      i2 = idx[t * 3 + 2]! * 3;
    const x0 = p[i0]!,
      y0 = p[i0 + 1]!,
      z0v = p[i0 + 2]!;
    const x1 = p[i1]!,
      y1 = p[i1 + 1]!,
      z1v = p[i1 + 2]!;
    const x2 = p[i2]!,
      y2 = p[i2 + 1]!,
      z2v = p[i2 + 2]!;
    // Horizontal normal of the face as stored decides the segments' direction (solid on the left), as in sliceTriangles.
    const nx = (y1 - y0) * (z2v - z0v) - (z1v - z0v) * (y2 - y0);
    const ny = (z1v - z0v) * (x2 - x0) - (x1 - x0) * (z2v - z0v);
    const full = Math.abs((x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)) / 2; // area seen from above
    // Corners by height: a (lowest), b, c (highest).
    let ax = x0,
      ay = y0,
      zA = z0v,
      bx = x1,
      by = y1,
      zB = z1v,
      cx = x2,
      cy = y2,
      zC = z2v,
      sx: number,
      sy: number,
      sz: number;
    if (zA > zB) {
      sx = ax;
      sy = ay;
      sz = zA;
      ax = bx;
      ay = by;
      zA = zB;
      bx = sx;
      by = sy;
      zB = sz;
    }
    if (zB > zC) {
      sx = bx;
      sy = by;
      sz = zB;
      bx = cx;
      by = cy;
      zB = zC;
      cx = sx;
      cy = sy;
      zC = sz;
    }
    if (zA > zB) {
      sx = ax;
      sy = ay;
      sz = zA;
      ax = bx;
      ay = by;
      zA = zB;
      bx = sx;
      by = sy;
      zB = sz;
    }
    if (!(zC > zA)) {
      // Horizontal: no segment, its whole area lies between two planes.
      if (full > 0) addOn(d, BELOW, firstAtOrAbove(zA), last, full, 0, 0);
      continue;
    }
    // Planes cutting the face (zlo <= plane < zhi), split at the middle corner.
    const k0 = firstAtOrAbove(zA),
      kMid = firstAtOrAbove(zB),
      k2 = firstAtOrAbove(zC);
    const lowEnd = Math.min(kMid, layers) - 1,
      highEnd = Math.min(k2, layers) - 1;
    // The face widens the boxes of the blocks whose planes it crosses, by the part of it between
    // the block's first and last plane: the cuts there and the corners in between.
    for (
      let blk = Math.floor(k0 / BOX_BLOCK), e = Math.floor(highEnd / BOX_BLOCK);
      blk <= e && highEnd >= k0;
      blk++
    ) {
      const zLo = z0 + firstPlane + Math.max(k0, blk * BOX_BLOCK) * step;
      const zHi = z0 + firstPlane + Math.min(highEnd, blk * BOX_BLOCK + BOX_BLOCK - 1) * step;
      // The cuts at zLo and zHi: on edge a→c, and on a→b below the middle corner or b→c above it.
      const rl = (zLo - zA) / (zC - zA),
        rh = (zHi - zA) / (zC - zA);
      let xMin = Math.min(ax + (cx - ax) * rl, ax + (cx - ax) * rh);
      let xMax = Math.max(ax + (cx - ax) * rl, ax + (cx - ax) * rh);
      let yMin = Math.min(ay + (cy - ay) * rl, ay + (cy - ay) * rh);
      let yMax = Math.max(ay + (cy - ay) * rl, ay + (cy - ay) * rh);
      const ql = zLo < zB ? (zLo - zA) / (zB - zA) : zC > zB ? (zLo - zB) / (zC - zB) : 0;
      const qh = zHi < zB ? (zHi - zA) / (zB - zA) : zC > zB ? (zHi - zB) / (zC - zB) : 0;
      const xl = zLo < zB ? ax + (bx - ax) * ql : bx + (cx - bx) * ql,
        yl = zLo < zB ? ay + (by - ay) * ql : by + (cy - by) * ql;
      const xh = zHi < zB ? ax + (bx - ax) * qh : bx + (cx - bx) * qh,
        yh = zHi < zB ? ay + (by - ay) * qh : by + (cy - by) * qh;
      xMin = Math.min(xMin, xl, xh);
      xMax = Math.max(xMax, xl, xh);
      yMin = Math.min(yMin, yl, yh);
      yMax = Math.max(yMax, yl, yh);
      if (zB >= zLo && zB <= zHi) {
        xMin = Math.min(xMin, bx);
        xMax = Math.max(xMax, bx);
        yMin = Math.min(yMin, by);
        yMax = Math.max(yMax, by);
      }
      const o = blk * 4;
      if (xMin < boxes[o]!) boxes[o] = xMin;
      if (xMax > boxes[o + 1]!) boxes[o + 1] = xMax;
      if (yMin < boxes[o + 2]!) boxes[o + 2] = yMin;
      if (yMax > boxes[o + 3]!) boxes[o + 3] = yMax;
    }
    const az = zA - z0,
      bz = zB - z0,
      cz = zC - z0; // polynomials in t = z - z0, like the planes
    const highFrom = k0 > kMid ? k0 : kMid;
    // Lower piece (az <= plane < bz): lone corner a. Upper piece (bz <= plane < cz): lone corner c.
    if (lowEnd >= k0) {
      addPiece(
        d,
        k0,
        lowEnd,
        firstPlane + ((k0 + lowEnd) / 2) * step,
        nx,
        ny,
        ax,
        ay,
        az,
        bx,
        by,
        bz,
        cx,
        cy,
        cz,
        false,
      );
      // Projected area at or below the plane: the similar triangle at a grows as (t - az)².
      if (full > 0) {
        const g = full / ((bz - az) * (cz - az));
        addOn(d, BELOW, k0, lowEnd, g * az * az, -2 * g * az, g);
      }
    }
    if (highEnd >= highFrom) {
      addPiece(
        d,
        highFrom,
        highEnd,
        firstPlane + ((highFrom + highEnd) / 2) * step,
        nx,
        ny,
        cx,
        cy,
        cz,
        ax,
        ay,
        az,
        bx,
        by,
        bz,
        true,
      );
      // ... or the whole face less the similar triangle at c, which shrinks as (cz - t)².
      if (full > 0) {
        const g = full / ((cz - az) * (cz - bz));
        addOn(d, BELOW, highFrom, highEnd, full - g * cz * cz, 2 * g * cz, -g);
      }
    }
    if (full > 0 && k2 < layers) addOn(d, BELOW, k2, last, full, 0, 0);
  }
  const area = new Float64Array(layers),
    outline = new Float64Array(layers),
    below = new Float64Array(layers);
  const c = new Float64Array(STRIDE);
  for (let k = 0; k < layers; k++) {
    for (let j = 0; j < STRIDE; j++) c[j] = c[j]! + d[k * STRIDE + j]!;
    const t = firstPlane + k * step;
    area[k] = Math.abs(c[AREA]! + t * (c[AREA + 1]! + t * c[AREA + 2]!)) / 2;
    outline[k] = c[OUTLINE]! + t * c[OUTLINE + 1]!;
    below[k] = c[BELOW]! + t * (c[BELOW + 1]! + t * c[BELOW + 2]!);
  }
  const change = new Float64Array(Math.max(0, layers - 1));
  for (let k = 0; k + 1 < layers; k++) change[k] = Math.max(0, below[k + 1]! - below[k]!);
  return { area, outline, change, boxes };
}
