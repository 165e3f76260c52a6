import { MESH_LIMITS } from './limits.ts';
import { leaseScratch } from './scratch.ts';

/**
 * Edge topology from the welded index buffer, without an edge hash: every half-edge is
 * bucketed under the smaller of its two vertex ids (CSR), so all half-edges of an edge land in
 * one short bucket and are counted there. A bucket entry is 4 bytes: the other vertex, the
 * direction and, once the edge is found to be a problem, its problem bits; the triangles of
 * problem edges are found by replaying the bucket fill, which only runs when there are any.
 * Shells come from a union-find joined along the edges while the buckets are read.
 *
 * The work runs in the WebAssembly kernels (edgeTopology, flagTriangles in
 * assembly/kernels.ts) on a copy of the indices in the scratch memory, beside the buckets.
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

// A bucket entry holds the other vertex in bits 1-23 (see assembly/kernels.ts).
if (MESH_LIMITS.maxVertices * 2 > 0xffffff) throw new Error('MESH_LIMITS.maxVertices does not fit a bucket entry');

/** `flags` (one per triangle) gets TRI_OPEN, TRI_NONMANIFOLD and TRI_WINDING or-ed in. */
export function computeTopology(indices: Uint32Array, vertexCount: number, flags: Uint8Array): Topology {
  const nh = indices.length;
  // Regions, in 4-byte words: counts (3), offsets (vertexCount + 1), parent (vertexCount),
  // half-edges (nh), indices (nh); then the triangle flags, a byte each.
  const offsets = 16;
  const parent = offsets + (vertexCount + 1) * 4;
  const he = parent + vertexCount * 4;
  const idx = he + nh * 4;
  const flagsAt = idx + nh * 4;
  const lease = leaseScratch(flagsAt + flags.length);
  try {
    const { buffer, kernels } = lease;
    new Uint32Array(buffer, idx, nh).set(indices);
    const shells = kernels.edgeTopology(idx, nh, vertexCount, offsets, parent, he, 0);
    const [open, nonManifold, inconsistent] = new Uint32Array(buffer, 0, 3);
    if (open! + nonManifold! + inconsistent! > 0) {
      const scratchFlags = new Uint8Array(buffer, flagsAt, flags.length);
      scratchFlags.set(flags);
      kernels.flagTriangles(idx, nh, vertexCount, offsets, he, parent, flagsAt);
      flags.set(scratchFlags);
    }
    return { openEdges: open!, nonManifoldEdges: nonManifold!, inconsistentEdges: inconsistent!, shells };
  } finally {
    lease.release();
  }
}
