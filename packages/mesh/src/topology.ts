/**
 * Edge topology from the welded index buffer, without an edge hash: every half-edge is
 * bucketed under the smaller of its two vertex ids (CSR), so all half-edges of an edge
 * land in one short bucket and are counted there. Memory: 8 bytes per half-edge.
 */
export interface Topology {
  openEdges: number;
  nonManifoldEdges: number;
  inconsistentEdges: number;
  shells: number;
  /** Vertices referenced by at least one triangle. */
  usedVertices: number;
  /** Per triangle bit flags: 1 open edge, 2 non-manifold edge, 4 winding conflict. */
  flags: Uint8Array;
}

export const TRI_OPEN = 1;
export const TRI_NONMANIFOLD = 2;
export const TRI_WINDING = 4;

export function computeTopology(indices: Uint32Array, vertexCount: number): Topology {
  const nh = indices.length;
  const nt = nh / 3;
  const offsets = new Uint32Array(vertexCount + 1);
  for (let t = 0; t < nh; t += 3) {
    const a = indices[t]!, b = indices[t + 1]!, c = indices[t + 2]!;
    offsets[(a < b ? a : b) + 1]!++;
    offsets[(b < c ? b : c) + 1]!++;
    offsets[(c < a ? c : a) + 1]!++;
  }
  for (let v = 0; v < vertexCount; v++) offsets[v + 1]! += offsets[v]!;
  const fill = offsets.slice(0, vertexCount);
  // he[2s] = other vertex * 2 + (1 when the half-edge runs from the larger id to the smaller),
  // he[2s+1] = triangle: key and triangle share a cache line, so the scattered fill writes one.
  const he = new Uint32Array(nh * 2);
  for (let t = 0, h = 0; h < nh; t++, h += 3) {
    const a = indices[h]!, b = indices[h + 1]!, c = indices[h + 2]!;
    let s: number;
    if (a < b) { s = fill[a]!++ << 1; he[s] = b * 2; } else { s = fill[b]!++ << 1; he[s] = a * 2 + 1; }
    he[s + 1] = t;
    if (b < c) { s = fill[b]!++ << 1; he[s] = c * 2; } else { s = fill[c]!++ << 1; he[s] = b * 2 + 1; }
    he[s + 1] = t;
    if (c < a) { s = fill[c]!++ << 1; he[s] = a * 2; } else { s = fill[a]!++ << 1; he[s] = c * 2 + 1; }
    he[s + 1] = t;
  }
  const flags = new Uint8Array(nt);
  let open = 0;
  let nonManifold = 0;
  let inconsistent = 0;
  // A half-edge already counted with an earlier one of its edge gets bit 31 (ids < 2^30).
  const DONE = 0x80000000;
  for (let v = 0; v < vertexCount; v++) {
    const s = offsets[v]! << 1, e = offsets[v + 1]! << 1;
    for (let i = s; i < e; i += 2) {
      const ki = he[i]!;
      if (ki >= DONE) continue;
      const other = ki >>> 1;
      if (other === v) continue; // degenerate edge
      let fwd = 1 - (ki & 1), bwd = ki & 1;
      for (let j = i + 2; j < e; j += 2) {
        const kj = he[j]!;
        if (kj >>> 1 === other) {
          he[j] = kj | DONE;
          if (kj & 1) bwd++;
          else fwd++;
        }
      }
      const m = fwd + bwd;
      if (m === 2 && fwd === 1) continue;
      let mask = 0;
      if (m === 1) { open++; mask = TRI_OPEN; }
      else if (m > 2) { nonManifold++; mask = TRI_NONMANIFOLD; }
      else { inconsistent++; mask = TRI_WINDING; }
      for (let j = i; j < e; j += 2) if (((he[j]! & ~DONE) >>> 1) === other) flags[he[j + 1]!]! |= mask;
    }
  }

  // Shells: union-find over vertices joined by triangles.
  const parent = fill; // reuse: same length, no longer needed
  for (let v = 0; v < vertexCount; v++) parent[v] = v;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      const p = parent[parent[x]!]!;
      parent[x] = p;
      x = p;
    }
    return x;
  };
  for (let t = 0; t < nh; t += 3) {
    const a = find(indices[t]!);
    const b = find(indices[t + 1]!);
    if (a !== b) parent[b] = a;
    const c = find(indices[t + 2]!);
    const a2 = find(a);
    if (a2 !== c) parent[c] = a2;
  }
  let shells = 0;
  let usedVertices = 0;
  const used = new Uint8Array(vertexCount);
  for (let h = 0; h < nh; h++) used[indices[h]!] = 1;
  for (let v = 0; v < vertexCount; v++) {
    if (!used[v]) continue;
    usedVertices++;
    if (parent[v] === v) shells++;
  }
  return { openEdges: open, nonManifoldEdges: nonManifold, inconsistentEdges: inconsistent, shells, usedVertices, flags };
}
