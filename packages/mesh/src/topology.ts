import { MESH_LIMITS } from './limits.ts';
import { leaseScratch } from './scratch.ts';

/**
 * Edge topology from the welded index buffer, without an edge hash: every half-edge is
 * bucketed under the smaller of its two vertex ids (CSR), so all half-edges of an edge land in
 * one short bucket and are counted there. A bucket entry is 4 bytes: the other vertex, the
 * direction and, once the edge is found to be a problem, its problem bits; the triangles of
 * problem edges are found by replaying the bucket fill, which only runs when there are any.
 * Shells come from a union-find joined along the edges while the buckets are read. All
 * temporaries live in the scratch buffer.
 *
 * The mesh must reference every vertex (MeshBuilder guarantees it), so every vertex counts
 * towards a shell.
 */
export interface Topology {
  openEdges: number;
  nonManifoldEdges: number;
  inconsistentEdges: number;
  shells: number;
}

export const TRI_OPEN = 1;
export const TRI_NONMANIFOLD = 2;
export const TRI_WINDING = 4;

// Bucket entry: bit 0 direction (1: from the larger id to the smaller), bits 1-23 the other
// vertex, bits 24-26 the edge's TRI_* problem bits, bit 31 "already counted with an earlier entry".
const VERTEX_BITS = 0xffffff;
const PROBLEM_SHIFT = 24;
const DONE = 0x80000000;
if (MESH_LIMITS.maxVertices * 2 > VERTEX_BITS) throw new Error('MESH_LIMITS.maxVertices does not fit a bucket entry');

interface EdgeCounts {
  open: number;
  nonManifold: number;
  inconsistent: number;
  shells: number;
}

/** `flags` (one per triangle) gets TRI_OPEN, TRI_NONMANIFOLD and TRI_WINDING or-ed in. */
export function computeTopology(indices: Uint32Array, vertexCount: number, flags: Uint8Array): Topology {
  const nh = indices.length;
  const lease = leaseScratch((2 * vertexCount + 1 + nh) * 4);
  try {
    const buf = lease.buffer;
    const offsets = new Uint32Array(buf, 0, vertexCount + 1).fill(0);
    const parent = new Uint32Array(buf, (vertexCount + 1) * 4, vertexCount);
    const he = new Uint32Array(buf, (2 * vertexCount + 1) * 4, nh);
    countBuckets(indices, offsets, vertexCount);
    fillBuckets(indices, offsets, he);
    // fillBuckets advanced each start to the bucket's end: bucket v is now [offsets[v-1], offsets[v]).
    const counts = scanBuckets(he, offsets, parent, vertexCount);
    if (counts.open + counts.nonManifold + counts.inconsistent > 0) flagTriangles(indices, offsets, he, parent, flags, vertexCount);
    return {
      openEdges: counts.open,
      nonManifoldEdges: counts.nonManifold,
      inconsistentEdges: counts.inconsistent,
      shells: counts.shells,
    };
  } finally {
    lease.release();
  }
}

/** offsets[v] becomes the start of vertex v's bucket (exclusive prefix sum of the bucket sizes). */
function countBuckets(indices: Uint32Array, offsets: Uint32Array, vertexCount: number): void {
  for (let t = 0, nh = indices.length; t < nh; t += 3) {
    const a = indices[t]!, b = indices[t + 1]!, c = indices[t + 2]!;
    offsets[(a < b ? a : b) + 1]!++;
    offsets[(b < c ? b : c) + 1]!++;
    offsets[(c < a ? c : a) + 1]!++;
  }
  for (let v = 0; v < vertexCount; v++) offsets[v + 1]! += offsets[v]!;
}

function fillBuckets(indices: Uint32Array, cursor: Uint32Array, he: Uint32Array): void {
  for (let h = 0, nh = indices.length; h < nh; h += 3) {
    const a = indices[h]!, b = indices[h + 1]!, c = indices[h + 2]!;
    if (a < b) he[cursor[a]!++] = b * 2;
    else he[cursor[b]!++] = a * 2 + 1;
    if (b < c) he[cursor[b]!++] = c * 2;
    else he[cursor[c]!++] = b * 2 + 1;
    if (c < a) he[cursor[c]!++] = a * 2;
    else he[cursor[a]!++] = c * 2 + 1;
  }
}

/** Counts every edge's half-edges per direction, marks the problem edges' entries, joins shells. */
function scanBuckets(he: Uint32Array, ends: Uint32Array, parent: Uint32Array, vertexCount: number): EdgeCounts {
  let open = 0, nonManifold = 0, inconsistent = 0;
  for (let v = 0; v < vertexCount; v++) parent[v] = v;
  for (let v = 0, s = 0; v < vertexCount; v++) {
    const e = ends[v]!;
    // Root of v's shell, kept current through this bucket's unions (v is found once, not per edge).
    let rv = v;
    while (parent[rv] !== rv) rv = parent[rv] = parent[parent[rv]!]!;
    for (let i = s; i < e; i++) {
      const ki = he[i]!;
      if (ki >= DONE) continue;
      const other = ki >>> 1;
      if (other === v) continue; // degenerate edge
      let fwd = 1 - (ki & 1), bwd = ki & 1;
      for (let j = i + 1; j < e; j++) {
        const kj = he[j]!;
        if (kj >>> 1 === other) {
          he[j] = kj | DONE;
          if (kj & 1) bwd++;
          else fwd++;
        }
      }
      if (fwd !== 1 || bwd !== 1) {
        const m = fwd + bwd;
        let problem: number;
        if (m === 1) {
          open++;
          problem = TRI_OPEN;
        } else if (m > 2) {
          nonManifold++;
          problem = TRI_NONMANIFOLD;
        } else {
          inconsistent++;
          problem = TRI_WINDING;
        }
        for (let j = i; j < e; j++) if ((he[j]! & VERTEX_BITS) >>> 1 === other) he[j]! |= problem << PROBLEM_SHIFT;
      }
      // Union (finds halve their paths); the smaller root wins.
      let rb = other;
      while (parent[rb] !== rb) rb = parent[rb] = parent[parent[rb]!]!;
      if (rv < rb) parent[rb] = rv;
      else if (rb < rv) {
        parent[rv] = rb;
        rv = rb;
      }
    }
    s = e;
  }
  let shells = 0;
  for (let v = 0; v < vertexCount; v++) if (parent[v] === v) shells++;
  return { open, nonManifold, inconsistent, shells };
}

/**
 * Replays fillBuckets: the k-th half-edge a triangle wrote into a bucket is the k-th entry
 * there, so each triangle finds its three entries and takes their problem bits.
 */
function flagTriangles(indices: Uint32Array, ends: Uint32Array, he: Uint32Array, cursor: Uint32Array, flags: Uint8Array, vertexCount: number): void {
  for (let v = 0; v < vertexCount; v++) cursor[v] = v === 0 ? 0 : ends[v - 1]!;
  for (let t = 0, h = 0, nh = indices.length; h < nh; t++, h += 3) {
    const a = indices[h]!, b = indices[h + 1]!, c = indices[h + 2]!;
    const ab = he[a < b ? cursor[a]!++ : cursor[b]!++]!;
    const bc = he[b < c ? cursor[b]!++ : cursor[c]!++]!;
    const ca = he[c < a ? cursor[c]!++ : cursor[a]!++]!;
    flags[t]! |= ((ab | bc | ca) >>> PROBLEM_SHIFT) & 7;
  }
}
