import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { leaseScratch, type ScratchLease } from './scratch.ts';
import { TriangleGeometry } from './triangle-geometry.ts';

/**
 * The table starts this empty: with four slots to a cache line, a lookup at load 0.35 stays in
 * its home line 99 % of the time (at 0.6, 85 %), and a step into an untouched line is a full
 * cache miss. It doubles past MAX_LOAD.
 */
const INITIAL_LOAD = 0.35;
const MAX_LOAD = 0.7;

/**
 * Welds vertices by their exact float32 bits while a parser streams triangles in, so
 * every format ends up as one indexed mesh without a per-triangle object or a second
 * pass. Exact-bit welding is what slicers do for STL and keeps shared edges shared.
 *
 * Call finish() (or dispose() when parsing fails) to hand the hash table back to the scratch pool.
 */
export class MeshBuilder {
  private verts: Float32Array;
  private bits: Uint32Array;
  private vertexCount = 0;
  /**
   * Open addressing with the key stored in the slot (bx, by, bz, id), 16 bytes, four slots to a
   * 64-byte bucket on a cache line. A lookup starts at its bucket's first slot (`h & home`) and
   * probes linearly (`& mask`), so it reads one line unless the bucket overflowed.
   */
  private table: Int32Array;
  private mask: number;
  private home: number;
  private lease: ScratchLease;
  private idx: Uint32Array;
  private idxLen = 0;
  private readonly scratchF = new Float32Array(3);
  private readonly scratchU = new Uint32Array(this.scratchF.buffer);
  private readonly maxTriangles: number;
  /** Sink for the batch touches in addBinaryStlTriangles (never read). */
  touched = 0;
  /** Triangle index where each printable object (3MF build item) starts. */
  readonly partStarts: number[] = [];
  /** The object's sums, when the parser gathered them on the way (binary STL). */
  private geometry: TriangleGeometry | undefined;

  constructor(expectedTriangles = 1024, maxTriangles: number = MESH_LIMITS.maxTriangles) {
    this.maxTriangles = maxTriangles;
    // Closed meshes have about half as many vertices as triangles.
    const expVerts = Math.max(64, Math.ceil(expectedTriangles * 0.55));
    this.verts = new Float32Array(expVerts * 3);
    this.bits = new Uint32Array(this.verts.buffer);
    let size = 1024;
    while (size * INITIAL_LOAD < expVerts) size <<= 1;
    this.lease = leaseScratch(size * 16);
    this.table = new Int32Array(this.lease.buffer, 0, size * 4).fill(-1);
    this.mask = size - 1;
    this.home = this.mask & ~3;
    this.idx = new Uint32Array(Math.max(3, expectedTriangles * 3));
  }

  get triangleCount(): number {
    return this.idxLen / 3;
  }

  beginPart(): void {
    const t = this.triangleCount;
    if (this.partStarts[this.partStarts.length - 1] !== t) this.partStarts.push(t);
  }

  /** Adds a vertex given as float32 bit patterns and returns its welded id. */
  vertexBits(bx: number, by: number, bz: number): number {
    // -0 and +0 are the same point.
    if (bx === 0x80000000) bx = 0;
    if (by === 0x80000000) by = 0;
    if (bz === 0x80000000) bz = 0;
    bx |= 0;
    by |= 0;
    bz |= 0;
    let h = Math.imul(bx ^ (bx >>> 15), 0x2c1b3c6d);
    h ^= Math.imul(by ^ (by >>> 13), 0x297a2d39);
    h ^= Math.imul(bz ^ (bz >>> 16), 0x5bd1e995);
    h = (h ^ (h >>> 15)) & this.home;
    const table = this.table;
    for (;;) {
      const q = h << 2;
      const v = table[q + 3]!;
      if (v < 0) return this.insertAt(h, bx, by, bz);
      if (table[q] === bx && table[q + 1] === by && table[q + 2] === bz) return v;
      h = (h + 1) & this.mask;
    }
  }

  /** Stores a new vertex (bits as int32) in the empty slot `h` its probe ended on; returns its id. */
  private insertAt(h: number, bx: number, by: number, bz: number): number {
    // NaN and Inf can never be printed.
    if ((bx & 0x7f800000) === 0x7f800000 || (by & 0x7f800000) === 0x7f800000 || (bz & 0x7f800000) === 0x7f800000) {
      throw new MeshError('malformed', 'A vertex coordinate is not a finite number.');
    }
    const id = this.vertexCount++;
    if (id >= MESH_LIMITS.maxVertices) {
      throw new MeshError('too-many-triangles', `The model has more than ${MESH_LIMITS.maxVertices} vertices.`);
    }
    if ((id + 1) * 3 > this.bits.length) this.growVerts();
    const o = id * 3;
    this.bits[o] = bx;
    this.bits[o + 1] = by;
    this.bits[o + 2] = bz;
    const q = h << 2;
    const table = this.table;
    table[q] = bx;
    table[q + 1] = by;
    table[q + 2] = bz;
    table[q + 3] = id;
    if (this.vertexCount > (this.mask + 1) * MAX_LOAD) this.rehash();
    return id;
  }

  /**
   * The hot loop for binary STL. Adjacent triangles of a big STL rarely share vertices
   * (on the 1.28M-triangle corpus file most repeats are 2^17+ triangles apart), so every
   * lookup misses the cache. The loop therefore works in batches: it reads and hashes a
   * batch of vertices, feeds the triangles to the object's sums (see gatherGeometry) while
   * they are in cache, touches all their buckets (independent loads the CPU overlaps), and
   * only then probes, which then hits cache.
   */
  addBinaryStlTriangles(dv: DataView, n: number): void {
    if ((this.idxLen + n * 3) > this.idx.length) {
      const grown = new Uint32Array(this.idxLen + n * 3);
      grown.set(this.idx.subarray(0, this.idxLen));
      this.idx = grown;
    }
    const B = 64; // triangles per batch
    const hb = new Int32Array(B * 3);
    const kb = new Int32Array(B * 9);
    const kf = new Float32Array(kb.buffer);
    const same = new Uint8Array(B);
    const geometry = this.geometry;
    const base = this.idxLen / 3;
    let table = this.table;
    let mask = this.mask;
    let home = this.home;
    const idx = this.idx;
    let w = this.idxLen;
    let sink = 0;
    for (let t0 = 0; t0 < n; t0 += B) {
      const m = (n - t0 < B ? n - t0 : B) * 3;
      // 1. read and hash
      for (let j = 0, o = 96 + t0 * 50; j < m; j += 3, o += 50) {
        for (let k = 0; k < 3; k++) {
          const p = o + k * 12;
          let bx = dv.getInt32(p, true), by = dv.getInt32(p + 4, true), bz = dv.getInt32(p + 8, true);
          if (bx === -0x80000000) bx = 0;
          if (by === -0x80000000) by = 0;
          if (bz === -0x80000000) bz = 0;
          let h = Math.imul(bx ^ (bx >>> 15), 0x2c1b3c6d);
          h ^= Math.imul(by ^ (by >>> 13), 0x297a2d39);
          h ^= Math.imul(bz ^ (bz >>> 16), 0x5bd1e995);
          const q = (j + k) * 3;
          hb[j + k] = h ^ (h >>> 15);
          kb[q] = bx;
          kb[q + 1] = by;
          kb[q + 2] = bz;
        }
      }
      // 2. the triangles' sums, while their corners are in cache
      if (geometry) addBatchGeometry(geometry, kb, kf, same, base + t0, m / 3);
      // 3. touch every bucket so the cache misses overlap
      for (let j = 0; j < m; j++) sink ^= table[((hb[j]! & home) << 2) + 3]!;
      // 4. probe
      for (let j = 0; j < m; j++) {
        const q3 = j * 3;
        const bx = kb[q3]!, by = kb[q3 + 1]!, bz = kb[q3 + 2]!;
        let h = hb[j]! & home;
        let id: number;
        for (;;) {
          const q = h << 2;
          id = table[q + 3]!;
          if (id < 0) {
            this.idxLen = w; // insertAt may throw; the count stays right
            id = this.insertAt(h, bx, by, bz);
            table = this.table;
            mask = this.mask;
            home = this.home;
            break;
          }
          if (table[q] === bx && table[q + 1] === by && table[q + 2] === bz) break;
          h = (h + 1) & mask;
        }
        idx[w++] = id;
      }
    }
    this.idxLen = w;
    this.touched = sink; // keeps the touching loads observable
  }

  /** Makes addBinaryStlTriangles gather the object's sums for a mesh of `triangles` triangles (see TriangleGeometry). */
  gatherGeometry(triangles: number): void {
    this.geometry = new TriangleGeometry(new Uint8Array(triangles));
  }

  /**
   * Welds `n` vertices given as float32 bit patterns (x, y, z per vertex) and writes their
   * ids to `out`, in order; batched like addBinaryStlTriangles so cache misses overlap.
   */
  weldBits(bits: Int32Array, n: number, out: Uint32Array): void {
    const B = 192;
    const hb = new Int32Array(B);
    let table = this.table;
    let mask = this.mask;
    let home = this.home;
    let sink = 0;
    for (let j0 = 0; j0 < n; j0 += B) {
      const m = n - j0 < B ? n - j0 : B;
      for (let j = 0; j < m; j++) {
        const o = (j0 + j) * 3;
        let bx = bits[o]!, by = bits[o + 1]!, bz = bits[o + 2]!;
        if (bx === -0x80000000) bits[o] = bx = 0;
        if (by === -0x80000000) bits[o + 1] = by = 0;
        if (bz === -0x80000000) bits[o + 2] = bz = 0;
        let h = Math.imul(bx ^ (bx >>> 15), 0x2c1b3c6d);
        h ^= Math.imul(by ^ (by >>> 13), 0x297a2d39);
        h ^= Math.imul(bz ^ (bz >>> 16), 0x5bd1e995);
        hb[j] = h ^ (h >>> 15);
      }
      for (let j = 0; j < m; j++) sink ^= table[((hb[j]! & home) << 2) + 3]!;
      for (let j = 0; j < m; j++) {
        const o = (j0 + j) * 3;
        const bx = bits[o]!, by = bits[o + 1]!, bz = bits[o + 2]!;
        let h = hb[j]! & home;
        let id = -1;
        for (;;) {
          const q = h << 2;
          const v = table[q + 3]!;
          if (v < 0) break;
          if (table[q] === bx && table[q + 1] === by && table[q + 2] === bz) {
            id = v;
            break;
          }
          h = (h + 1) & mask;
        }
        if (id < 0) {
          id = this.vertexBits(bx >>> 0, by >>> 0, bz >>> 0);
          table = this.table;
          mask = this.mask;
          home = this.home;
        }
        out[j0 + j] = id;
      }
    }
    this.touched = sink;
  }

  vertex(x: number, y: number, z: number): number {
    const f = this.scratchF;
    f[0] = x;
    f[1] = y;
    f[2] = z;
    const u = this.scratchU;
    return this.vertexBits(u[0]!, u[1]!, u[2]!);
  }

  triangle(a: number, b: number, c: number): void {
    if (this.idxLen + 3 > this.idx.length) {
      if (this.idxLen / 3 >= this.maxTriangles) {
        throw new MeshError('too-many-triangles', `The model has more than ${this.maxTriangles} triangles.`);
      }
      const n = new Uint32Array(Math.min(this.maxTriangles * 3, Math.max(this.idx.length * 2, 3072)));
      n.set(this.idx);
      this.idx = n;
    }
    const i = this.idxLen;
    this.idx[i] = a;
    this.idx[i + 1] = b;
    this.idx[i + 2] = c;
    this.idxLen = i + 3;
  }

  /** Appends `nt` triangles `tris` (local vertex numbers) mapped through `ids`. */
  trianglesMapped(tris: Uint32Array, nt: number, ids: Uint32Array): void {
    if (this.idxLen / 3 + nt > this.maxTriangles) {
      throw new MeshError('too-many-triangles', `The model has more than ${this.maxTriangles} triangles.`);
    }
    if (this.idxLen + nt * 3 > this.idx.length) {
      const n = new Uint32Array(Math.min(this.maxTriangles * 3, Math.max(this.idx.length * 2, this.idxLen + nt * 3, 3072)));
      n.set(this.idx.subarray(0, this.idxLen));
      this.idx = n;
    }
    const idx = this.idx;
    let w = this.idxLen;
    for (let i = 0, e = nt * 3; i < e; i++) idx[w++] = ids[tris[i]!]!;
    this.idxLen = w;
  }

  private growVerts(): void {
    const n = new Float32Array(Math.min(MESH_LIMITS.maxVertices * 3, this.verts.length * 2));
    n.set(this.verts);
    this.verts = n;
    this.bits = new Uint32Array(n.buffer);
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    // Leased while the old table is still out, so this is fresh memory, not the same buffer.
    const lease = leaseScratch(size * 16);
    const table = new Int32Array(lease.buffer, 0, size * 4).fill(-1);
    const mask = size - 1;
    const home = mask & ~3;
    const bits = this.bits;
    for (let v = 0; v < this.vertexCount; v++) {
      const o = v * 3;
      const bx = bits[o]! | 0, by = bits[o + 1]! | 0, bz = bits[o + 2]! | 0;
      let h = Math.imul(bx ^ (bx >>> 15), 0x2c1b3c6d);
      h ^= Math.imul(by ^ (by >>> 13), 0x297a2d39);
      h ^= Math.imul(bz ^ (bz >>> 16), 0x5bd1e995);
      h = (h ^ (h >>> 15)) & home;
      while (table[(h << 2) + 3]! >= 0) h = (h + 1) & mask;
      const q = h << 2;
      table[q] = bx;
      table[q + 1] = by;
      table[q + 2] = bz;
      table[q + 3] = v;
    }
    this.lease.release();
    this.lease = lease;
    this.table = table;
    this.mask = mask;
    this.home = home;
  }

  /** Hands the hash table back; the builder cannot take vertices afterwards. */
  dispose(): void {
    this.table = new Int32Array(0);
    this.lease.release();
  }

  finish(): IndexedMesh {
    const tris = this.triangleCount;
    const starts = this.partStarts.filter((s) => s < tris);
    if (starts[0] !== 0) starts.unshift(0);
    // Hand the hash table back before the caller's topology leases the scratch buffer.
    this.dispose();
    const geometry = this.geometry && starts.length === 1 && this.geometry.flags.length === tris ? this.geometry : undefined;
    geometry?.finish();
    const nv = this.vertexCount * 3;
    return {
      // A view when the spare capacity is small (closed meshes: < 10 %): a copy costs a pass and page faults.
      positions: nv * 4 >= this.verts.length * 3 ? this.verts.subarray(0, nv) : this.verts.slice(0, nv),
      indices: this.idxLen === this.idx.length ? this.idx : this.idx.slice(0, this.idxLen),
      parts: Uint32Array.from([...starts, tris]),
      ...(geometry ? { partGeometry: [geometry] } : {}),
    };
  }
}

/** Feeds a batch of STL triangles (corner keys as float32 bits, -0 already 0) to the object's sums. */
function addBatchGeometry(geometry: TriangleGeometry, kb: Int32Array, kf: Float32Array, same: Uint8Array, firstTriangle: number, count: number): void {
  for (let i = 0; i < count; i++) {
    const a = i * 9, b = a + 3, c = a + 6;
    same[i] = +(
      (kb[a] === kb[b] && kb[a + 1] === kb[b + 1] && kb[a + 2] === kb[b + 2]) ||
      (kb[b] === kb[c] && kb[b + 1] === kb[c + 1] && kb[b + 2] === kb[c + 2]) ||
      (kb[a] === kb[c] && kb[a + 1] === kb[c + 1] && kb[a + 2] === kb[c + 2])
    );
  }
  geometry.addBatch(kf, same, firstTriangle, count);
}

export interface IndexedMesh {
  /** Welded vertex coordinates x,y,z in mm (units and transforms applied). */
  positions: Float32Array;
  /** Three vertex ids per triangle, winding as stored. */
  indices: Uint32Array;
  /** Triangle ranges of the printable objects: object k is [parts[k], parts[k+1]). */
  parts: Uint32Array;
  /** Per object sums gathered while parsing (binary STL); analyzeMesh computes them otherwise. */
  partGeometry?: TriangleGeometry[];
}
