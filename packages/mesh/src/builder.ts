import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { leaseScratch, type ScratchLease } from './scratch.ts';
import { geometryWorkBytes, TriangleGeometry } from './triangle-geometry.ts';

/**
 * The table starts this empty: with four slots to a cache line, a lookup at load 0.35 stays in
 * its home line 99 % of the time (at 0.6, 85 %), and a step into an untouched line is a full
 * cache miss. It doubles past MAX_LOAD.
 */
const INITIAL_LOAD = 0.35;
const MAX_LOAD = 0.7;

/**
 * Binary STL triangles welded per kernel call, and the byte offsets of the call's regions in the
 * scratch memory after the table: the records, their ids, the vertices they create (at most
 * three per triangle), their corners, the same-corner flags, the batch's hashes and the work
 * area of the object's sums.
 */
const STL_CHUNK = 4096;
/** Vertices welded per kernel call (weldBits); their keys, ids and new vertices fit the same regions. */
const VERTEX_CHUNK = STL_CHUNK * 3;
const IO_SRC = 0;
const IO_IDX = IO_SRC + STL_CHUNK * 50;
const IO_NEW_VERTS = IO_IDX + STL_CHUNK * 12;
const IO_CORNERS = IO_NEW_VERTS + STL_CHUNK * 36;
const IO_SAME = IO_CORNERS + STL_CHUNK * 36;
const IO_HASHES = IO_SAME + STL_CHUNK;
const IO_GEOMETRY = IO_HASHES + 4096;
const IO_BYTES = IO_GEOMETRY + geometryWorkBytes(STL_CHUNK);

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
    this.lease = leaseScratch(size * 16 + IO_BYTES);
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
   * Welds the `n` triangles of a binary STL (`bytes` is the whole file) in the WebAssembly
   * kernel (weldStl in assembly/kernels.ts), a chunk at a time: each chunk of records is copied
   * into the scratch memory beside the table, welded there, and its ids, new vertices and
   * corners are copied back; the object's sums (see gatherGeometry) are fed from those corners
   * while they are in cache.
   */
  addBinaryStl(bytes: Uint8Array, n: number): void {
    if (this.idxLen + n * 3 > this.idx.length) {
      const grown = new Uint32Array(this.idxLen + n * 3);
      grown.set(this.idx.subarray(0, this.idxLen));
      this.idx = grown;
    }
    const geometry = this.geometry;
    const base = this.idxLen / 3;
    for (let t0 = 0; t0 < n; t0 += STL_CHUNK) {
      const count = Math.min(STL_CHUNK, n - t0);
      // Room for every corner to be new, so the kernel never has to grow the table.
      while (this.vertexCount + count * 3 > (this.mask + 1) * MAX_LOAD) this.rehash();
      const buffer = this.lease.buffer;
      const io = (this.mask + 1) * 16;
      new Uint8Array(buffer, io + IO_SRC, count * 50).set(bytes.subarray(84 + t0 * 50, 84 + (t0 + count) * 50));
      const first = this.vertexCount;
      const nv = this.lease.kernels.weldStl(io + IO_SRC, count, 0, this.mask, first, io + IO_IDX, io + IO_NEW_VERTS, io + IO_CORNERS, io + IO_SAME, io + IO_HASHES);
      this.acceptNewVertices(buffer, io, first, nv);
      this.idx.set(new Uint32Array(buffer, io + IO_IDX, count * 3), this.idxLen);
      this.idxLen += count * 3;
      geometry?.addBatch(this.lease, io + IO_CORNERS, io + IO_SAME, io + IO_GEOMETRY, base + t0, count);
    }
  }

  /** Makes addBinaryStl gather the object's sums for a mesh of `triangles` triangles (see TriangleGeometry). */
  gatherGeometry(triangles: number): void {
    this.geometry = new TriangleGeometry(new Uint8Array(triangles));
  }

  /**
   * Welds `n` vertices given as float32 bit patterns (x, y, z per vertex) and writes their
   * ids to `out`, in order, in the WebAssembly kernel (weldVertices), a chunk at a time.
   */
  weldBits(bits: Int32Array, n: number, out: Uint32Array): void {
    for (let j0 = 0; j0 < n; j0 += VERTEX_CHUNK) {
      const count = Math.min(VERTEX_CHUNK, n - j0);
      while (this.vertexCount + count > (this.mask + 1) * MAX_LOAD) this.rehash();
      const buffer = this.lease.buffer;
      const io = (this.mask + 1) * 16;
      new Int32Array(buffer, io + IO_SRC, count * 3).set(bits.subarray(j0 * 3, (j0 + count) * 3));
      const first = this.vertexCount;
      const nv = this.lease.kernels.weldVertices(io + IO_SRC, count, 0, this.mask, first, io + IO_IDX, io + IO_NEW_VERTS, io + IO_HASHES);
      this.acceptNewVertices(buffer, io, first, nv);
      out.set(new Uint32Array(buffer, io + IO_IDX, count), j0);
    }
  }

  /** Takes the vertices a kernel call created (ids first..nv-1, bits at IO_NEW_VERTS). */
  private acceptNewVertices(buffer: ArrayBuffer, io: number, first: number, nv: number): void {
    if (nv < 0) throw new MeshError('malformed', 'A vertex coordinate is not a finite number.');
    if (nv > MESH_LIMITS.maxVertices) {
      throw new MeshError('too-many-triangles', `The model has more than ${MESH_LIMITS.maxVertices} vertices.`);
    }
    while (nv * 3 > this.bits.length) this.growVerts();
    this.bits.set(new Uint32Array(buffer, io + IO_NEW_VERTS, (nv - first) * 3), first * 3);
    this.vertexCount = nv;
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
    const lease = leaseScratch(size * 16 + IO_BYTES);
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
