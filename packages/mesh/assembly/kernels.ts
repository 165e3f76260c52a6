/**
 * The engine's hot loops, compiled to WebAssembly (AssemblyScript; docs/quote-engine.md says why). They work
 * on regions of one linear memory that the JavaScript side lays out and owns (wasm-kernels.ts):
 * every pointer here is a byte offset into it, and nothing is allocated here.
 */

export * from './layers';

/** Triangles read and hashed before their buckets are touched and probed (see weldStl). */
const BATCH: i32 = 64;
const NEGATIVE_ZERO: i32 = <i32>0x80000000;
const EXPONENT: i32 = 0x7f800000;

/** The vertex hash; MeshBuilder's JavaScript probe computes the same (vertexHash in builder.ts). */
@inline function vertexHash(bx: i32, by: i32, bz: i32): i32 {
  let h = (bx ^ (bx >>> 15)) * 0x2c1b3c6d;
  h ^= (by ^ (by >>> 13)) * 0x297a2d39;
  h ^= (bz ^ (bz >>> 16)) * 0x5bd1e995;
  return h ^ (h >>> 15);
}

/** The vertex count while a weld runs (findOrAdd adds to it). */
let vertexCount: i32 = 0;

/**
 * The id of the vertex with bits (bx, by, bz), probing from slot `h`; adds it (to the table
 * and, as id `vertexCount`, to `newVerts`, which starts at id `firstId`) when it is new.
 * Returns -1 for a new vertex that is not a finite number.
 */
@inline function findOrAdd(table: usize, mask: u32, h: u32, bx: i32, by: i32, bz: i32, newVerts: usize, firstId: i32): i32 {
  let q = table + (<usize>h << 4);
  let id = load<i32>(q, 12);
  while (id >= 0) {
    if (load<i32>(q) == bx && load<i32>(q, 4) == by && load<i32>(q, 8) == bz) return id;
    h = (h + 1) & mask;
    q = table + (<usize>h << 4);
    id = load<i32>(q, 12);
  }
  if ((bx & EXPONENT) == EXPONENT || (by & EXPONENT) == EXPONENT || (bz & EXPONENT) == EXPONENT) return -1;
  const added = vertexCount++;
  const v = newVerts + <usize>(added - firstId) * 12;
  store<i32>(v, bx);
  store<i32>(v, by, 4);
  store<i32>(v, bz, 8);
  store<i32>(q, bx);
  store<i32>(q, by, 4);
  store<i32>(q, bz, 8);
  store<i32>(q, added, 12);
  return added;
}

/**
 * Welds `n` binary-STL triangles (50-byte records at `src`) into the vertex table and returns
 * the new vertex count, or -1 when a new vertex is not a finite number.
 *
 * - table: `mask + 1` slots of (x bits, y bits, z bits, id), id -1 when empty; four slots make
 *   a 64-byte bucket, a lookup starts at its bucket's first slot and probes linearly. The
 *   caller guarantees room for 3n more vertices.
 * - idx: receives 3n vertex ids; newVerts: the bits of each vertex created (from id `nv` on);
 *   corners: the 9 coordinates of each triangle (float32, -0 as 0); sameCorner: 1 per triangle
 *   whose corners are not three distinct vertices.
 *
 * Adjacent triangles of a big STL rarely share vertices, so a lookup is a cache miss. A batch
 * is therefore read and hashed first, then all its buckets are touched (independent loads the
 * CPU overlaps), and only then probed, which then hits cache.
 */
export function weldStl(
  src: usize,
  n: i32,
  table: usize,
  mask: u32,
  nv: i32,
  idx: usize,
  newVerts: usize,
  corners: usize,
  sameCorner: usize,
  hashes: usize,
): i32 {
  const home = mask & ~3;
  const firstId = nv;
  vertexCount = nv;
  let sink: i32 = 0;
  let w = idx;
  for (let t0: i32 = 0; t0 < n; t0 += BATCH) {
    const m = min(n - t0, BATCH) * 3;
    const batchCorners = corners + <usize>t0 * 36;
    let o = src + <usize>t0 * 50 + 12;
    for (let j: i32 = 0; j < m; j += 3, o += 50) {
      for (let k: i32 = 0; k < 3; k++) {
        const p = o + <usize>(k * 12);
        let bx = load<i32>(p), by = load<i32>(p, 4), bz = load<i32>(p, 8);
        if (bx == NEGATIVE_ZERO) bx = 0;
        if (by == NEGATIVE_ZERO) by = 0;
        if (bz == NEGATIVE_ZERO) bz = 0;
        const c = <usize>(j + k);
        store<i32>(hashes + (c << 2), vertexHash(bx, by, bz));
        const q = batchCorners + c * 12;
        store<i32>(q, bx);
        store<i32>(q, by, 4);
        store<i32>(q, bz, 8);
      }
    }
    for (let j: i32 = 0; j < m; j++) {
      sink ^= load<i32>(table + (<usize>(<u32>load<i32>(hashes + (<usize>j << 2)) & home) << 4), 12);
    }
    for (let j: i32 = 0; j < m; j++) {
      const key = batchCorners + <usize>j * 12;
      const bx = load<i32>(key), by = load<i32>(key, 4), bz = load<i32>(key, 8);
      const id = findOrAdd(table, mask, <u32>load<i32>(hashes + (<usize>j << 2)) & home, bx, by, bz, newVerts, firstId);
      if (id < 0) return -1;
      store<i32>(w, id);
      w += 4;
    }
    for (let j: i32 = 0; j < m; j += 3) {
      const a = load<i32>(idx + (<usize>(t0 * 3 + j) << 2));
      const b = load<i32>(idx + (<usize>(t0 * 3 + j + 1) << 2));
      const c = load<i32>(idx + (<usize>(t0 * 3 + j + 2) << 2));
      store<u8>(sameCorner + <usize>(t0 + j / 3), <u8>(a == b || b == c || a == c));
    }
  }
  // Keeps the touching loads from being optimised away.
  store<i32>(hashes + <usize>(BATCH * 3) * 4, sink);
  return vertexCount;
}

/** Vertices hashed before their buckets are touched and probed (see weldVertices). */
const VERTEX_BATCH: i32 = 192;

/**
 * Welds `n` vertices given as float32 bits (x, y, z each) at `keys` into the vertex table (as
 * in weldStl) and writes their ids to `ids`; returns the new vertex count, or -1 when a new
 * vertex is not a finite number. The caller guarantees room for n more vertices.
 */
export function weldVertices(keys: usize, n: i32, table: usize, mask: u32, nv: i32, ids: usize, newVerts: usize, hashes: usize): i32 {
  const home = mask & ~3;
  const firstId = nv;
  vertexCount = nv;
  let sink: i32 = 0;
  for (let j0: i32 = 0; j0 < n; j0 += VERTEX_BATCH) {
    const m = min(n - j0, VERTEX_BATCH);
    const batch = keys + <usize>j0 * 12;
    for (let j: i32 = 0; j < m; j++) {
      const key = batch + <usize>j * 12;
      let bx = load<i32>(key), by = load<i32>(key, 4), bz = load<i32>(key, 8);
      if (bx == NEGATIVE_ZERO) store<i32>(key, (bx = 0));
      if (by == NEGATIVE_ZERO) store<i32>(key, (by = 0), 4);
      if (bz == NEGATIVE_ZERO) store<i32>(key, (bz = 0), 8);
      store<i32>(hashes + (<usize>j << 2), vertexHash(bx, by, bz));
    }
    for (let j: i32 = 0; j < m; j++) {
      sink ^= load<i32>(table + (<usize>(<u32>load<i32>(hashes + (<usize>j << 2)) & home) << 4), 12);
    }
    for (let j: i32 = 0; j < m; j++) {
      const key = batch + <usize>j * 12;
      const bx = load<i32>(key), by = load<i32>(key, 4), bz = load<i32>(key, 8);
      const id = findOrAdd(table, mask, <u32>load<i32>(hashes + (<usize>j << 2)) & home, bx, by, bz, newVerts, firstId);
      if (id < 0) return -1;
      store<i32>(ids + (<usize>(j0 + j) << 2), id);
    }
  }
  store<i32>(hashes + <usize>VERTEX_BATCH * 4, sink);
  return vertexCount;
}

// Edge topology (see topology.ts, which lays out the regions and documents the method).
// Bucket entry: bit 0 direction (1: from the larger id to the smaller), bits 1-23 the other
// vertex, bits 24-26 the edge's problem bits, bit 31 "already counted with an earlier entry".
const VERTEX_BITS: u32 = 0xffffff;
const PROBLEM_SHIFT: u32 = 24;
const DONE: u32 = 0x80000000;
const TRI_OPEN: u32 = 1;
const TRI_NONMANIFOLD: u32 = 2;
const TRI_WINDING: u32 = 4;

@inline function at(base: usize, i: u32): usize {
  return base + (<usize>i << 2);
}

/**
 * Buckets every half-edge of the `nh / 3` triangles at `indices` under the smaller of its two
 * vertex ids (offsets: vertexCount + 1 entries, he: nh entries), counts each edge's half-edges
 * per direction, marks the problem edges' entries and joins shells with a union-find in
 * `parent`. Writes the open, non-manifold and inconsistent edge counts to `counts` and returns
 * the number of shells. Afterwards bucket v is [offsets[v - 1], offsets[v]) (0 for v = 0).
 */
export function edgeTopology(indices: usize, nh: u32, vertexCount: u32, offsets: usize, parent: usize, he: usize, counts: usize): u32 {
  memory.fill(offsets, 0, <usize>(vertexCount + 1) << 2);
  for (let t: u32 = 0; t < nh; t += 3) {
    const a = load<u32>(at(indices, t)), b = load<u32>(at(indices, t + 1)), c = load<u32>(at(indices, t + 2));
    const ab = at(offsets, (a < b ? a : b) + 1), bc = at(offsets, (b < c ? b : c) + 1), ca = at(offsets, (c < a ? c : a) + 1);
    store<u32>(ab, load<u32>(ab) + 1);
    store<u32>(bc, load<u32>(bc) + 1);
    store<u32>(ca, load<u32>(ca) + 1);
  }
  let sum: u32 = 0;
  for (let v: u32 = 0; v <= vertexCount; v++) {
    sum += load<u32>(at(offsets, v));
    store<u32>(at(offsets, v), sum);
  }
  for (let t: u32 = 0; t < nh; t += 3) {
    const a = load<u32>(at(indices, t)), b = load<u32>(at(indices, t + 1)), c = load<u32>(at(indices, t + 2));
    pushHalfEdge(offsets, he, a, b);
    pushHalfEdge(offsets, he, b, c);
    pushHalfEdge(offsets, he, c, a);
  }
  let open: u32 = 0, nonManifold: u32 = 0, inconsistent: u32 = 0;
  for (let v: u32 = 0; v < vertexCount; v++) store<u32>(at(parent, v), v);
  let s: u32 = 0;
  for (let v: u32 = 0; v < vertexCount; v++) {
    const e = load<u32>(at(offsets, v));
    // Root of v's shell, kept current through this bucket's unions.
    let rv = findRoot(parent, v);
    for (let i = s; i < e; i++) {
      const ki = load<u32>(at(he, i));
      if (ki >= DONE) continue;
      const other = ki >>> 1;
      if (other == v) continue; // degenerate edge
      let fwd: u32 = 1 - (ki & 1), bwd: u32 = ki & 1;
      for (let j = i + 1; j < e; j++) {
        const kj = load<u32>(at(he, j));
        if (kj >>> 1 == other) {
          store<u32>(at(he, j), kj | DONE);
          if (kj & 1) bwd++;
          else fwd++;
        }
      }
      if (fwd != 1 || bwd != 1) {
        const m = fwd + bwd;
        let problem: u32;
        if (m == 1) {
          open++;
          problem = TRI_OPEN;
        } else if (m > 2) {
          nonManifold++;
          problem = TRI_NONMANIFOLD;
        } else {
          inconsistent++;
          problem = TRI_WINDING;
        }
        for (let j = i; j < e; j++) {
          const kj = load<u32>(at(he, j));
          if ((kj & VERTEX_BITS) >>> 1 == other) store<u32>(at(he, j), kj | (problem << PROBLEM_SHIFT));
        }
      }
      // Union; the smaller root wins.
      const rb = findRoot(parent, other);
      if (rv < rb) store<u32>(at(parent, rb), rv);
      else if (rb < rv) {
        store<u32>(at(parent, rv), rb);
        rv = rb;
      }
    }
    s = e;
  }
  let shells: u32 = 0;
  for (let v: u32 = 0; v < vertexCount; v++) if (load<u32>(at(parent, v)) == v) shells++;
  store<u32>(counts, open);
  store<u32>(counts, nonManifold, 4);
  store<u32>(counts, inconsistent, 8);
  return shells;
}

@inline function pushHalfEdge(cursor: usize, he: usize, from: u32, to: u32): void {
  const slot = at(cursor, from < to ? from : to);
  const k = load<u32>(slot);
  store<u32>(at(he, k), from < to ? to << 1 : (from << 1) | 1);
  store<u32>(slot, k + 1);
}

/** The root of v's set; halves the path on the way. */
@inline function findRoot(parent: usize, v: u32): u32 {
  let r = v;
  let p = load<u32>(at(parent, r));
  while (p != r) {
    const gp = load<u32>(at(parent, p));
    store<u32>(at(parent, r), gp);
    r = gp;
    p = load<u32>(at(parent, r));
  }
  return r;
}

/**
 * After edgeTopology: or-s each triangle's edges' problem bits into `flags` (a byte per
 * triangle). Replays the bucket fill: the k-th half-edge a triangle wrote into a bucket is the
 * k-th entry there. Uses `cursor` (vertexCount entries) as its own scratch.
 */
export function flagTriangles(indices: usize, nh: u32, vertexCount: u32, offsets: usize, he: usize, cursor: usize, flags: usize): void {
  for (let v: u32 = 0; v < vertexCount; v++) store<u32>(at(cursor, v), v == 0 ? 0 : load<u32>(at(offsets, v - 1)));
  for (let t: u32 = 0, h: u32 = 0; h < nh; t++, h += 3) {
    const a = load<u32>(at(indices, h)), b = load<u32>(at(indices, h + 1)), c = load<u32>(at(indices, h + 2));
    const bits = takeEntry(cursor, he, a, b) | takeEntry(cursor, he, b, c) | takeEntry(cursor, he, c, a);
    const f = flags + <usize>t;
    store<u8>(f, load<u8>(f) | <u8>((bits >>> PROBLEM_SHIFT) & 7));
  }
}

@inline function takeEntry(cursor: usize, he: usize, from: u32, to: u32): u32 {
  const slot = at(cursor, from < to ? from : to);
  const k = load<u32>(slot);
  store<u32>(slot, k + 1);
  return load<u32>(at(he, k));
}

// 3MF vertex and triangle runs (see xml-fast.ts, whose JavaScript readers these mirror; they
// re-read whatever is declined here, so these may be stricter but never different).
const MAX_ELEMENT: usize = 512;
const SPLIT: f64 = 134217729.0; // 2^27 + 1, Veltkamp's splitter
const NEAR_TIE: f64 = 9.094947017729282e-13; // 2^-40

/** Where the last readRun stopped. */
let runEnd: usize = 0;
/** The last number readNumber read. */
let numberValue: f64 = 0;

export function runStop(): usize {
  return runEnd;
}

/**
 * Reads consecutive `<vertex x=".." y=".." z=".."/>` elements (or, with `triangles`,
 * `<triangle v1=".." v2=".." v3=".."/>`, p1, p2, p3 and pid allowed and skipped), whitespace
 * between, from [start, end): x, y, z as f64 (v1, v2, v3 as i32) to `out`, until `max` are read
 * or an element cannot be taken whole here (runStop() then points at it). Returns how many
 * were read.
 */
export function readRun(triangles: bool, start: usize, end: usize, out: usize, max: i32): i32 {
  let i = start;
  let count: i32 = 0;
  while (count < max) {
    const e = triangles ? readTriangle(i, end, out + <usize>count * 12) : readVertex(i, end, out + <usize>count * 24);
    if (e == 0) break;
    count++;
    i = e;
    while (i < end && isWs(load<u8>(i))) i++;
  }
  runEnd = i;
  return count;
}

@inline function isWs(c: u8): bool {
  return c == 32 || c == 10 || c == 9 || c == 13;
}

/** One vertex element at i; returns the index after it, or 0 to decline. */
function readVertex(i: usize, end: usize, out: usize): usize {
  if (end - i < 7) return 0;
  if (load<u8>(i) != 60 || load<u8>(i, 1) != 118 || load<u8>(i, 2) != 101 || load<u8>(i, 3) != 114 || load<u8>(i, 4) != 116 || load<u8>(i, 5) != 101 || load<u8>(i, 6) != 120) {
    return 0;
  }
  let p = i + 7;
  let seen: i32 = 0;
  const limit = min(end, i + MAX_ELEMENT);
  for (;;) {
    const ws0 = p;
    while (p < limit && isWs(load<u8>(p))) p++;
    if (p + 1 >= limit) return 0;
    const c = load<u8>(p);
    if (c == 47) return load<u8>(p, 1) == 62 && seen == 7 ? p + 2 : 0;
    if (p == ws0) return 0;
    const bit: i32 = c == 120 ? 1 : c == 121 ? 2 : c == 122 ? 4 : 0;
    if (bit == 0 || seen & bit || load<u8>(p, 1) != 61) return 0;
    if (p + 2 >= limit) return 0;
    const q = load<u8>(p, 2);
    if (q != 34 && q != 39) return 0;
    const r = readNumber(p + 3, limit, q);
    if (r == 0) return 0;
    store<f64>(out + <usize>(bit == 4 ? 16 : (bit - 1) * 8), numberValue);
    seen |= bit;
    p = r;
  }
  return 0;
}

/** One triangle element at i; returns the index after it, or 0 to decline. */
function readTriangle(i: usize, end: usize, out: usize): usize {
  if (end - i < 9) return 0;
  if (
    load<u8>(i) != 60 || load<u8>(i, 1) != 116 || load<u8>(i, 2) != 114 || load<u8>(i, 3) != 105 || load<u8>(i, 4) != 97 ||
    load<u8>(i, 5) != 110 || load<u8>(i, 6) != 103 || load<u8>(i, 7) != 108 || load<u8>(i, 8) != 101
  ) {
    return 0;
  }
  let p = i + 9;
  let seen: i32 = 0;
  const limit = min(end, i + MAX_ELEMENT);
  for (;;) {
    const ws0 = p;
    while (p < limit && isWs(load<u8>(p))) p++;
    if (p + 4 >= limit) return 0;
    const c = load<u8>(p);
    if (c == 47) return load<u8>(p, 1) == 62 && (seen & 7) == 7 ? p + 2 : 0;
    if (p == ws0) return 0;
    // v1 v2 v3 p1 p2 p3 pid
    let bit: i32 = 0;
    let nameLen: usize = 2;
    const c1 = <i32>load<u8>(p, 1);
    if (c == 118 && c1 >= 49 && c1 <= 51) bit = 1 << (c1 - 49);
    else if (c == 112 && c1 >= 49 && c1 <= 51) bit = 8 << (c1 - 49);
    else if (c == 112 && c1 == 105 && load<u8>(p, 2) == 100) {
      bit = 64;
      nameLen = 3;
    }
    if (bit == 0 || seen & bit) return 0;
    p += nameLen;
    if (load<u8>(p) != 61) return 0;
    const q = load<u8>(p, 1);
    if (q != 34 && q != 39) return 0;
    p += 2;
    if (bit <= 4) {
      let v: i32 = 0;
      const s = p;
      while (p < limit) {
        const d = <i32>load<u8>(p) - 48;
        if (d < 0 || d > 9) break;
        v = v * 10 + d;
        p++;
      }
      if (p >= limit || load<u8>(p) != q || p == s || p - s > 9) return 0;
      store<i32>(out + <usize>(bit == 4 ? 8 : (bit - 1) * 4), v);
    } else {
      while (p < limit && load<u8>(p) != q) {
        const c2 = load<u8>(p);
        if (c2 == 60 || c2 == 38 || c2 < 32) return 0;
        p++;
      }
      if (p >= limit) return 0;
    }
    seen |= bit;
    p++;
  }
  return 0;
}

/**
 * A decimal number ending at quote `q` into numberValue; returns the index after the quote, or
 * 0 to decline (anything the JavaScript reader would not convert with these same operations).
 */
function readNumber(start: usize, limit: usize, q: u8): usize {
  let p = start;
  if (p >= limit) return 0;
  let neg = false;
  let c = load<u8>(p);
  if (c == 45) {
    neg = true;
    p++;
  } else if (c == 43) p++;
  // The first 15 significant digits in mant (exact), the next two in tail.
  let mant: f64 = 0;
  let tail: f64 = 0;
  let sig: i32 = 0;
  let exp: i32 = 0;
  let any = false;
  while (p < limit) {
    const d = <i32>load<u8>(p) - 48;
    if (d < 0 || d > 9) break;
    any = true;
    if (sig != 0 || d != 0) {
      sig++;
      if (sig <= 15) mant = mant * 10 + <f64>d;
      else tail = tail * 10 + <f64>d;
    }
    p++;
  }
  if (p < limit && load<u8>(p) == 46) {
    p++;
    while (p < limit) {
      const d = <i32>load<u8>(p) - 48;
      if (d < 0 || d > 9) break;
      any = true;
      if (sig != 0 || d != 0) {
        sig++;
        if (sig <= 15) mant = mant * 10 + <f64>d;
        else tail = tail * 10 + <f64>d;
      }
      exp--;
      p++;
    }
  }
  if (p >= limit || !any) return 0;
  c = load<u8>(p);
  if (c == 101 || c == 69) {
    p++;
    let eneg = false;
    if (p < limit && load<u8>(p) == 45) {
      eneg = true;
      p++;
    } else if (p < limit && load<u8>(p) == 43) p++;
    let e: i32 = 0;
    const s = p;
    while (p < limit) {
      const d = <i32>load<u8>(p) - 48;
      if (d < 0 || d > 9) break;
      e = e * 10 + d;
      p++;
    }
    if (p >= limit || p == s || p - s > 3) return 0;
    exp += eneg ? -e : e;
  }
  if (load<u8>(p) != q) return 0;
  let v: f64;
  if (sig == 0) v = 0;
  else if (sig > 17 || exp > 22 || exp < -22) return 0;
  else if (sig > 15) {
    v = decimal17ToDouble(mant, tail, sig - 15, exp);
    if (isNaN(v)) return 0;
  } else if (exp == 0) v = mant;
  else if (exp > 0) v = mant * pow10(exp);
  else v = mant / pow10(-exp);
  numberValue = neg ? -v : v;
  return p + 1;
}

/** 10^k for 0 <= k <= 22, exactly (every partial product is an exact power of ten). */
@inline function pow10(k: i32): f64 {
  let r: f64 = 1;
  let b: f64 = 10;
  while (k) {
    if (k & 1) r *= b;
    b *= b;
    k >>= 1;
  }
  return r;
}

/** a * b as hi + lo, exactly: the lo part (Dekker's product). */
@inline function twoProductLo(a: f64, b: f64, p: f64): f64 {
  let c = SPLIT * a;
  const ah = c - (c - a), al = a - ah;
  c = SPLIT * b;
  const bh = c - (c - b), bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/** decimal17ToDouble of numbers.ts, operation for operation (see there for the method). */
function decimal17ToDouble(head: f64, tail: f64, tailDigits: i32, exp10: i32): f64 {
  const scale = pow10(tailDigits);
  const p = head * scale;
  const pe = twoProductLo(head, scale, p);
  let hi = p + tail;
  const bb = hi - p;
  let lo = p - (hi - bb) + (tail - bb) + pe;
  let s = hi + lo;
  lo = lo - (s - hi);
  hi = s;
  if (exp10 > 0) {
    const d = pow10(exp10);
    const q = hi * d;
    lo = twoProductLo(hi, d, q) + lo * d;
    hi = q;
  } else if (exp10 < 0) {
    const d = pow10(-exp10);
    const q1 = hi / d;
    const m = q1 * d;
    const r = hi - m - twoProductLo(q1, d, m) + lo;
    hi = q1;
    lo = r / d;
  }
  s = hi + lo;
  lo = lo - (s - hi);
  if (s + lo * (1 + NEAR_TIE) != s || s + lo * (1 - NEAR_TIE) != s) return NaN;
  return s;
}

// Per-triangle sums of one printable object (see triangle-geometry.ts, which owns the state
// between calls and documents the method).
const TRI_DEGENERATE: u8 = 8;
const TRI_OVERHANG: u8 = 16;
const BED_CONTACT_MM: f64 = 0.01;

/**
 * Adds `count` triangles, corners (9 float32 each) at `corners` and same-corner bytes at
 * `sameCorner`, to the sums at `state`: f64 vol6, area2, minX, minY, minZ, maxX, maxY, maxZ,
 * overhang2, then i32 degenerate and overhang counts. Writes each triangle's TRI_DEGENERATE or
 * TRI_OVERHANG bit to `flags` (a byte each). A downward face that may rest on the bed (see
 * TriangleGeometry) is left to the caller: its number in the batch (i32), its doubled area and
 * its top (f64) go to `deferred`, 24 bytes each. Returns how many were deferred.
 */
export function triangleSums(corners: usize, sameCorner: usize, count: i32, cosLimit: f64, state: usize, flags: usize, deferred: usize): i32 {
  let vol6 = load<f64>(state), area2 = load<f64>(state, 8);
  let minX = load<f64>(state, 16), minY = load<f64>(state, 24), minZ = load<f64>(state, 32);
  let maxX = load<f64>(state, 40), maxY = load<f64>(state, 48), maxZ = load<f64>(state, 56);
  let overhang2 = load<f64>(state, 64);
  let degenerate = load<i32>(state, 72), overhangs = load<i32>(state, 76);
  let waiting: i32 = 0;
  for (let i: i32 = 0; i < count; i++) {
    const o = corners + <usize>i * 36;
    const ax = <f64>load<f32>(o), ay = <f64>load<f32>(o, 4), az = <f64>load<f32>(o, 8);
    const bx = <f64>load<f32>(o, 12), by = <f64>load<f32>(o, 16), bz = <f64>load<f32>(o, 20);
    const cx = <f64>load<f32>(o, 24), cy = <f64>load<f32>(o, 28), cz = <f64>load<f32>(o, 32);
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
    // Signed tetrahedron to the origin, a · (b × c), written as a · n (the same value).
    vol6 += ax * nx + ay * ny + az * nz;
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
    area2 += len;
    const wx = cx - bx, wy = cy - by, wz = cz - bz;
    const u2 = ux * ux + uy * uy + uz * uz, v2 = vx * vx + vy * vy + vz * vz, w2 = wx * wx + wy * wy + wz * wz;
    let maxEdge2 = u2 > v2 ? u2 : v2;
    if (w2 > maxEdge2) maxEdge2 = w2;
    let flag: u8 = 0;
    if (load<u8>(sameCorner + <usize>i) || len <= 1e-6 * maxEdge2) {
      degenerate++;
      flag = TRI_DEGENERATE;
    } else if (nz < -cosLimit * len) {
      if (top > minZ + BED_CONTACT_MM) {
        overhang2 += len;
        overhangs++;
        flag = TRI_OVERHANG;
      } else {
        const d = deferred + <usize>waiting * 24;
        store<i32>(d, i);
        store<f64>(d, len, 8);
        store<f64>(d, top, 16);
        waiting++;
      }
    }
    store<u8>(flags + <usize>i, flag);
  }
  store<f64>(state, vol6);
  store<f64>(state, area2, 8);
  store<f64>(state, minX, 16);
  store<f64>(state, minY, 24);
  store<f64>(state, minZ, 32);
  store<f64>(state, maxX, 40);
  store<f64>(state, maxY, 48);
  store<f64>(state, maxZ, 56);
  store<f64>(state, overhang2, 64);
  store<i32>(state, degenerate, 72);
  store<i32>(state, overhangs, 76);
  return waiting;
}

/**
 * Gathers the corners of `count` triangles (3 vertex ids each at `indices`) from `positions`
 * (x, y, z float32 per vertex) into `corners` (9 float32 each), with a same-corner byte each,
 * for triangleSums.
 */
export function gatherCorners(positions: usize, indices: usize, count: i32, corners: usize, sameCorner: usize): void {
  for (let i: i32 = 0; i < count; i++) {
    const t = indices + <usize>i * 12;
    const a = load<u32>(t), b = load<u32>(t, 4), c = load<u32>(t, 8);
    const o = corners + <usize>i * 36;
    const pa = positions + <usize>a * 12, pb = positions + <usize>b * 12, pc = positions + <usize>c * 12;
    store<i32>(o, load<i32>(pa));
    store<i32>(o, load<i32>(pa, 4), 4);
    store<i32>(o, load<i32>(pa, 8), 8);
    store<i32>(o, load<i32>(pb), 12);
    store<i32>(o, load<i32>(pb, 4), 16);
    store<i32>(o, load<i32>(pb, 8), 20);
    store<i32>(o, load<i32>(pc), 24);
    store<i32>(o, load<i32>(pc, 4), 28);
    store<i32>(o, load<i32>(pc, 8), 32);
    store<u8>(sameCorner + <usize>i, <u8>(a == b || b == c || a == c));
  }
}

// OBJ lines (see obj.ts, whose TypeScript reader this mirrors for the common `v` and `f` lines
// and every line it skips; any other line is declined, and the TypeScript reader reads it).

/** Lines readObjLines consumed, and vertices, face indices, faces and triangles it added. */
let objLines: i32 = 0;
let objVertices: i32 = 0;
let objIndices: i32 = 0;
let objFaces: i32 = 0;
let objTriangles: i32 = 0;

export function objCounts(which: i32): i32 {
  return which == 0 ? objLines : which == 1 ? objVertices : which == 2 ? objIndices : which == 3 ? objFaces : objTriangles;
}

@inline function isBlank(c: u8): bool {
  return c == 32 || c == 9;
}

/**
 * Reads whole lines from `start` (a line start) in [start, end) (`final`: end is the file's
 * end, so the last line needs no terminator). `v` lines append x, y, z (f64) to `verts`, `f`
 * lines their 0-based vertex indices (i32) to `indices` and their first index's position to
 * `faces`; other lines are skipped. `nv` vertices were read before; at most `maxVerts`,
 * `maxIndices`, `maxFaces` and `maxTriangles` more are added. Stops before a line it does not
 * take (or that would not fit) and returns where; objCounts() tells what it added.
 */
export function readObjLines(
  start: usize,
  end: usize,
  final: bool,
  nv: i32,
  verts: usize,
  maxVerts: i32,
  indices: usize,
  maxIndices: i32,
  faces: usize,
  maxFaces: i32,
  maxTriangles: i32,
): usize {
  let pos = start;
  let lines: i32 = 0, addedVerts: i32 = 0, addedIndices: i32 = 0, addedFaces: i32 = 0, addedTriangles: i32 = 0;
  while (pos < end) {
    let eol = pos;
    while (eol < end && load<u8>(eol) != 10 && load<u8>(eol) != 13) eol++;
    // The line, or its CR LF, may go on past the window.
    if (!final && (eol == end || (eol + 1 == end && load<u8>(eol) == 13))) break;
    let i = pos;
    while (i < eol && isBlank(load<u8>(i))) i++;
    const c0 = i < eol ? load<u8>(i) : 0;
    const sep = i + 1 < eol && isBlank(load<u8>(i + 1));
    if (c0 == 118 && sep) {
      if (addedVerts == maxVerts) break;
      i += 2;
      const v = verts + <usize>addedVerts * 24;
      let k: i32 = 0;
      for (; k < 3; k++) {
        while (i < eol && isBlank(load<u8>(i))) i++;
        const s = i;
        while (i < eol && !isBlank(load<u8>(i))) i++;
        if (s == i || !parseObjFloat(s, i)) break;
        store<f64>(v + <usize>k * 8, numberValue);
      }
      if (k < 3) break;
      addedVerts++;
    } else if (c0 == 102 && sep) {
      i += 2;
      const first = addedIndices;
      let ok = true;
      for (;;) {
        while (i < eol && isBlank(load<u8>(i))) i++;
        if (i >= eol) break;
        if (addedIndices == maxIndices) {
          ok = false;
          break;
        }
        // Fast path: an optional '-' and 1-9 digits, then '/', a blank or the line's end.
        let neg = false;
        if (load<u8>(i) == 45) {
          neg = true;
          i++;
        }
        const s = i;
        let raw: i32 = 0;
        while (i < eol) {
          const d = <i32>load<u8>(i) - 48;
          if (d < 0 || d > 9) break;
          raw = raw * 10 + d;
          i++;
        }
        if (i == s || i - s > 9 || (i < eol && load<u8>(i) != 47 && !isBlank(load<u8>(i))) || raw == 0) {
          ok = false;
          break;
        }
        const idx = neg ? nv + addedVerts - raw : raw - 1;
        if (idx < 0) {
          ok = false;
          break;
        }
        while (i < eol && !isBlank(load<u8>(i))) i++;
        store<i32>(indices + (<usize>addedIndices << 2), idx);
        addedIndices++;
      }
      const count = addedIndices - first;
      if (!ok || count < 3 || addedFaces == maxFaces || addedTriangles + count - 2 > maxTriangles) {
        addedIndices = first;
        break;
      }
      store<i32>(faces + (<usize>addedFaces << 2), first);
      addedFaces++;
      addedTriangles += count - 2;
    }
    // The line is taken (or skipped: vt, vn, g, o, usemtl, comments, ...).
    lines++;
    pos = eol;
    if (pos < end && load<u8>(pos) == 13) pos++;
    if (pos < end && load<u8>(pos) == 10) pos++;
  }
  objLines = lines;
  objVertices = addedVerts;
  objIndices = addedIndices;
  objFaces = addedFaces;
  objTriangles = addedTriangles;
  return pos;
}

/**
 * parseFloatBytes of numbers.ts on [s, e) into numberValue, operation for operation; false for
 * what it would not give a finite number for, and for exponents past ±22 (there it calls
 * `10 ** exp`, which only the TypeScript reader may do).
 */
function parseObjFloat(s: usize, e: usize): bool {
  let i = s;
  let neg = false;
  const c = load<u8>(i);
  if (c == 45) {
    neg = true;
    i++;
  } else if (c == 43) i++;
  let mant: f64 = 0;
  let digits: i32 = 0;
  let exp: i32 = 0;
  let any = false;
  while (i < e) {
    const d = <i32>load<u8>(i) - 48;
    if (d < 0 || d > 9) break;
    any = true;
    if (digits < 17) {
      mant = mant * 10 + <f64>d;
      if (mant != 0) digits++;
    } else exp++;
    i++;
  }
  if (i < e && load<u8>(i) == 46) {
    i++;
    while (i < e) {
      const d = <i32>load<u8>(i) - 48;
      if (d < 0 || d > 9) break;
      any = true;
      if (digits < 17) {
        mant = mant * 10 + <f64>d;
        if (mant != 0) digits++;
        exp--;
      }
      i++;
    }
  }
  if (!any) return false;
  if (i < e && (load<u8>(i) == 101 || load<u8>(i) == 69)) {
    i++;
    let eneg = false;
    if (i < e && load<u8>(i) == 45) {
      eneg = true;
      i++;
    } else if (i < e && load<u8>(i) == 43) i++;
    let x: i32 = 0;
    let eany = false;
    while (i < e) {
      const d = <i32>load<u8>(i) - 48;
      if (d < 0 || d > 9) break;
      if (x < 10000) x = x * 10 + d;
      eany = true;
      i++;
    }
    if (!eany) return false;
    exp += eneg ? -x : x;
  }
  if (i != e) return false;
  let v: f64;
  if (exp == 0) v = mant;
  else if (exp > 0 && exp < 23) v = mant * pow10(exp);
  else if (exp < 0 && exp > -23) v = mant / pow10(-exp);
  else return false;
  if (!isFinite(v)) return false;
  numberValue = neg ? -v : v;
  return true;
}
