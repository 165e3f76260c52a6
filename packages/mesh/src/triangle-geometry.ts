import type { Kernels } from './scratch.ts';

/** A face is an overhang when it leans more than this from vertical, facing down. */
export const OVERHANG_ANGLE_DEG = 45;
/** Faces this close to an object's lowest point rest on the bed and need no support. */
const BED_CONTACT_MM = 0.01;
const COS_LIMIT = Math.cos((OVERHANG_ANGLE_DEG * Math.PI) / 180);

/** The state triangleSums keeps between batches (9 f64, 2 i32), padded to 8 bytes. */
const WORK_HEADER = 80;

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Scratch bytes TriangleGeometry.addBatch needs for a batch of `count` triangles. */
export function geometryWorkBytes(count: number): number {
  return WORK_HEADER + align8(count) + count * 24;
}

/** Triangle flag bits set here (the topology sets 1, 2 and 4). */
export const TRI_DEGENERATE = 8;
export const TRI_OVERHANG = 16;

/**
 * The per-triangle sums of one printable object: volume, area, box, degenerate triangles and
 * overhangs, fed in batches of triangles in file order.
 *
 * One class (and one kernel) for every path, so the figures cannot drift apart: analyzeMesh
 * feeds it from the indexed mesh, and the binary STL reader feeds it while a batch of
 * triangles is still in cache (gathering the corners through the index afterwards is a cache
 * miss per corner).
 *
 * Whether a downward face rests on the bed depends on the object's lowest point, which is only
 * known at the end; a face that might (all its corners within BED_CONTACT_MM of the lowest
 * point seen so far) waits in a short list and is decided in finish(); the kernel hands those
 * back to this class, which keeps the list.
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
  private overhang2 = 0;
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
   * Adds `count` triangles starting at triangle `first`, in the WebAssembly kernel
   * (triangleSums in assembly/kernels.ts): their corners (9 float32 each) and same-corner bytes
   * (1 when two corners are the same welded vertex) are in the scratch memory at `corners` and
   * `sameCorner`; the kernel works in geometryWorkBytes(count) bytes at `work` (8-aligned).
   * These triangles' flags must still be 0: their TRI_DEGENERATE / TRI_OVERHANG bits are
   * written, not or-ed.
   */
  addBatch(scratch: { buffer: ArrayBuffer; kernels: Kernels }, corners: number, sameCorner: number, work: number, first: number, count: number): void {
    const { buffer, kernels } = scratch;
    const sums = new Float64Array(buffer, work, 9);
    const counts = new Int32Array(buffer, work + 72, 2);
    sums[0] = this.vol6;
    sums[1] = this.area2;
    sums[2] = this.minX;
    sums[3] = this.minY;
    sums[4] = this.minZ;
    sums[5] = this.maxX;
    sums[6] = this.maxY;
    sums[7] = this.maxZ;
    sums[8] = this.overhang2;
    counts[0] = this.degenerate;
    counts[1] = this.overhangCount;
    const flagsAt = work + WORK_HEADER;
    const deferredAt = flagsAt + align8(count);
    const waiting = kernels.triangleSums(corners, sameCorner, count, COS_LIMIT, work, flagsAt, deferredAt);
    this.vol6 = sums[0]!;
    this.area2 = sums[1]!;
    this.minX = sums[2]!;
    this.minY = sums[3]!;
    this.minZ = sums[4]!;
    this.maxX = sums[5]!;
    this.maxY = sums[6]!;
    this.maxZ = sums[7]!;
    this.overhang2 = sums[8]!;
    this.degenerate = counts[0]!;
    this.overhangCount = counts[1]!;
    this.flags.set(new Uint8Array(buffer, flagsAt, count), first);
    if (waiting > 0) {
      const deferred = new DataView(buffer, deferredAt, waiting * 24);
      for (let k = 0; k < waiting; k++) {
        this.defer(first + deferred.getInt32(k * 24, true), deferred.getFloat64(k * 24 + 8, true), deferred.getFloat64(k * 24 + 16, true), this.minZ);
      }
    }
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
