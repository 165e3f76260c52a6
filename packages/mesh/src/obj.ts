import { MeshBuilder, type IndexedMesh } from './builder.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { parseFloatBytes } from './numbers.ts';

/**
 * OBJ geometry only: v and f (any polygon size, fan-triangulated as slicers and the
 * reference do), negative indices, groups/objects/materials ignored. Faces are resolved
 * after the whole file is read so forward references work.
 */
export function parseObj(bytes: Uint8Array): IndexedMesh {
  const len = bytes.length;
  let vx = new Float64Array(3 * 4096);
  let nv = 0;
  let fIdx = new Int32Array(4096);
  let nfi = 0;
  let fStart: number[] = [];
  let line = 0;
  let pos = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) pos = 3;
  const fail = (what: string): never => {
    throw new MeshError('malformed', `OBJ: ${what} on line ${line}.`);
  };
  let tris = 0;
  while (pos < len) {
    line++;
    let eol = pos;
    while (eol < len && bytes[eol] !== 10 && bytes[eol] !== 13) eol++;
    let i = pos;
    while (i < eol && (bytes[i] === 32 || bytes[i] === 9)) i++;
    const c0 = bytes[i];
    const c1 = bytes[i + 1];
    const sep = c1 === 32 || c1 === 9;
    if (c0 === 118 /* v */ && sep) {
      i += 2;
      if ((nv + 1) * 3 > vx.length) {
        if (nv >= MESH_LIMITS.maxVertices) throw new MeshError('too-many-triangles', `The OBJ has more than ${MESH_LIMITS.maxVertices} vertices.`);
        const n = new Float64Array(vx.length * 2);
        n.set(vx);
        vx = n;
      }
      for (let k = 0; k < 3; k++) {
        while (i < eol && (bytes[i] === 32 || bytes[i] === 9)) i++;
        const s = i;
        while (i < eol && bytes[i] !== 32 && bytes[i] !== 9) i++;
        if (s === i) fail('a vertex needs x, y and z');
        const v = parseFloatBytes(bytes, s, i);
        if (!Number.isFinite(v)) fail('a vertex coordinate is not a number');
        vx[nv * 3 + k] = v;
      }
      nv++;
    } else if (c0 === 102 /* f */ && sep) {
      i += 2;
      const start = nfi;
      for (;;) {
        while (i < eol && (bytes[i] === 32 || bytes[i] === 9)) i++;
        if (i >= eol) break;
        if (bytes[i] === 92 /* \ continuation */) fail('line continuations are not supported');
        const s = i;
        while (i < eol && bytes[i] !== 47 /* / */ && bytes[i] !== 32 && bytes[i] !== 9) i++;
        const raw = parseFloatBytes(bytes, s, i);
        if (!Number.isInteger(raw) || raw === 0) fail('a face index is not a non-zero integer');
        // Negative indices count back from the vertices read so far.
        const idx = raw < 0 ? nv + raw : raw - 1;
        if (idx < 0) fail('a relative face index points before the first vertex');
        while (i < eol && bytes[i] !== 32 && bytes[i] !== 9) i++;
        if (nfi >= fIdx.length) {
          const n = new Int32Array(fIdx.length * 2);
          n.set(fIdx);
          fIdx = n;
        }
        fIdx[nfi++] = idx;
      }
      const count = nfi - start;
      if (count < 3) fail('a face needs at least 3 vertices');
      tris += count - 2;
      if (tris > MESH_LIMITS.maxTriangles) {
        throw new MeshError('too-many-triangles', `The OBJ has more than ${MESH_LIMITS.maxTriangles} triangles.`);
      }
      fStart.push(start);
    }
    // Every other statement (vt, vn, g, o, usemtl, comments, ...) carries no geometry we need.
    pos = eol;
    if (pos < len && bytes[pos] === 13) pos++;
    if (pos < len && bytes[pos] === 10) pos++;
  }
  if (fStart.length === 0) {
    throw new MeshError('empty', nv === 0 ? 'The OBJ has no vertices or faces.' : 'The OBJ has vertices but no faces.');
  }
  fStart.push(nfi);
  // Only vertices a face uses enter the mesh (the builder's promise to the topology), welded in one call.
  const slot = new Int32Array(nv).fill(-1);
  const usedBits = new Float32Array(Math.min(nv, nfi) * 3);
  let nu = 0;
  for (let k = 0; k < nfi; k++) {
    const v = fIdx[k]!;
    if (v >= nv) throw new MeshError('malformed', `OBJ: a face refers to vertex ${v + 1} but there are only ${nv}.`);
    if (slot[v]! >= 0) continue;
    slot[v] = nu;
    usedBits[nu * 3] = vx[v * 3]!;
    usedBits[nu * 3 + 1] = vx[v * 3 + 1]!;
    usedBits[nu * 3 + 2] = vx[v * 3 + 2]!;
    nu++;
  }
  const b = new MeshBuilder(tris);
  try {
    const ids = new Uint32Array(nu);
    b.weldBits(new Int32Array(usedBits.buffer, 0, nu * 3), nu, ids);
    const id = (objIndex: number): number => ids[slot[objIndex]!]!;
    for (let f = 0; f + 1 < fStart.length; f++) {
      const s = fStart[f]!;
      const e = fStart[f + 1]!;
      const a = id(fIdx[s]!);
      for (let k = s + 1; k + 1 < e; k++) b.triangle(a, id(fIdx[k]!), id(fIdx[k + 1]!));
    }
    fStart = [];
    return b.finish();
  } finally {
    b.dispose();
  }
}
