/** A face is an overhang when it leans more than this from vertical, facing down. */
export const OVERHANG_ANGLE_DEG = 45;
/** Faces this close to an object's lowest point rest on the bed and need no support. */
const BED_CONTACT_MM = 0.01;
const COS_LIMIT = Math.cos((OVERHANG_ANGLE_DEG * Math.PI) / 180);

/** Triangle flag bits set here (the topology sets 1, 2 and 4). */
export const TRI_DEGENERATE = 8;
export const TRI_OVERHANG = 16;

/**
 * The per-triangle sums of one printable object: volume, area, box, degenerate triangles and
 * overhangs, fed in batches of triangles in file order.
 *
 * One class for every path, so the figures cannot drift apart: analyzeMesh feeds it from the
 * indexed mesh, and the binary STL reader feeds it while a batch of triangles is still in cache
 * (gathering the corners through the index afterwards is a cache miss per corner).
 *
 * Whether a downward face rests on the bed depends on the object's lowest point, which is only
 * known at the end; a face that might (all its corners within BED_CONTACT_MM of the lowest
 * point seen so far) waits in a short list and is decided in finish().
 */
export class TriangleGeometry {
  vol6 = 0;
  area2 = 0;
  degenerate = 0;
  minX = Infinity;
  minY = Infinity;
  minZ = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;
  maxZ = -Infinity;
  private overhang2 = 0; // updated per overhang face, not per triangle
  private overhangCount = 0;
  private pending = 0;
  private pendingTri = new Uint32Array(64);
  private pendingLen = new Float64Array(64);
  private pendingTop = new Float64Array(64);

  /** Indexed by triangle; TRI_DEGENERATE and TRI_OVERHANG are or-ed in. */
  readonly flags: Uint8Array;

  constructor(flags: Uint8Array) {
    this.flags = flags;
  }

  /**
   * Adds `count` triangles starting at triangle `first`: `xyz` holds their corners (9 numbers
   * each), `sameCorner[i]` is 1 when two corners of triangle i are the same (welded) vertex.
   * Sums are kept in locals for the batch (object fields holding doubles are slow to update).
   */
  addBatch(xyz: Float32Array, sameCorner: Uint8Array, first: number, count: number): void {
    const flags = this.flags;
    let vol6 = this.vol6, area2 = this.area2, degenerate = this.degenerate;
    let minX = this.minX, minY = this.minY, minZ = this.minZ, maxX = this.maxX, maxY = this.maxY, maxZ = this.maxZ;
    for (let i = 0; i < count; i++) {
      const o = i * 9;
      const ax = xyz[o]!, ay = xyz[o + 1]!, az = xyz[o + 2]!;
      const bx = xyz[o + 3]!, by = xyz[o + 4]!, bz = xyz[o + 5]!;
      const cx = xyz[o + 6]!, cy = xyz[o + 7]!, cz = xyz[o + 8]!;
      if (ax < minX) minX = ax;
      if (bx < minX) minX = bx;
      if (cx < minX) minX = cx;
      if (ax > maxX) maxX = ax;
      if (bx > maxX) maxX = bx;
      if (cx > maxX) maxX = cx;
      if (ay < minY) minY = ay;
      if (by < minY) minY = by;
      if (cy < minY) minY = cy;
      if (ay > maxY) maxY = ay;
      if (by > maxY) maxY = by;
      if (cy > maxY) maxY = cy;
      let top = az > bz ? az : bz;
      if (cz > top) top = cz;
      if (az < minZ) minZ = az;
      if (bz < minZ) minZ = bz;
      if (cz < minZ) minZ = cz;
      if (top > maxZ) maxZ = top;
      const ux = bx - ax, uy = by - ay, uz = bz - az;
      const vx = cx - ax, vy = cy - ay, vz = cz - az;
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      // Signed tetrahedron to the origin, a · (b × c), written as a · n (the same value): open
      // meshes then match the reference sum, which also takes the origin as apex.
      vol6 += ax * nx + ay * ny + az * nz;
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      area2 += len;
      const wx = cx - bx, wy = cy - by, wz = cz - bz;
      const u2 = ux * ux + uy * uy + uz * uz, v2 = vx * vx + vy * vy + vz * vz, w2 = wx * wx + wy * wy + wz * wz;
      let maxEdge2 = u2 > v2 ? u2 : v2;
      if (w2 > maxEdge2) maxEdge2 = w2;
      if (sameCorner[i] || len <= 1e-6 * maxEdge2) {
        degenerate++;
        flags[first + i]! |= TRI_DEGENERATE;
      } else if (nz < -COS_LIMIT * len) {
        if (top > minZ + BED_CONTACT_MM) this.countOverhang(first + i, len);
        else this.defer(first + i, len, top, minZ);
      }
    }
    this.vol6 = vol6;
    this.area2 = area2;
    this.degenerate = degenerate;
    this.minX = minX;
    this.minY = minY;
    this.minZ = minZ;
    this.maxX = maxX;
    this.maxY = maxY;
    this.maxZ = maxZ;
  }

  /** Decides the faces that waited for the lowest point; call once, after the last addBatch(). */
  finish(): void {
    this.settlePending(this.minZ);
    this.pending = 0;
  }

  get overhangAreaMm2(): number {
    return this.overhang2 / 2;
  }

  get overhangTriangles(): number {
    return this.overhangCount;
  }

  /** Counts the waiting faces that are above the bed by now (the lowest point only goes down) and keeps the rest. */
  private settlePending(lowest: number): void {
    const bed = lowest + BED_CONTACT_MM;
    let kept = 0;
    for (let k = 0; k < this.pending; k++) {
      if (this.pendingTop[k]! > bed) {
        this.countOverhang(this.pendingTri[k]!, this.pendingLen[k]!);
        continue;
      }
      this.pendingTri[kept] = this.pendingTri[k]!;
      this.pendingLen[kept] = this.pendingLen[k]!;
      this.pendingTop[kept] = this.pendingTop[k]!;
      kept++;
    }
    this.pending = kept;
  }

  private countOverhang(t: number, len: number): void {
    this.overhang2 += len;
    this.overhangCount++;
    this.flags[t]! |= TRI_OVERHANG;
  }

  private defer(t: number, len: number, top: number, lowest: number): void {
    if (this.pending === this.pendingTri.length) this.settlePending(lowest);
    if (this.pending === this.pendingTri.length) {
      const n = this.pending * 2;
      this.pendingTri = grow(this.pendingTri, new Uint32Array(n));
      this.pendingLen = grow(this.pendingLen, new Float64Array(n));
      this.pendingTop = grow(this.pendingTop, new Float64Array(n));
    }
    this.pendingTri[this.pending] = t;
    this.pendingLen[this.pending] = len;
    this.pendingTop[this.pending] = top;
    this.pending++;
  }
}

function grow<T extends Uint32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
