import { MeshBuilder, type IndexedMesh } from './builder.ts';
import { MeshError } from './errors.ts';
import { parseHexFloatBytes } from './hex-float.ts';
import { MESH_LIMITS } from './limits.ts';
import { parseFloatBytes } from './numbers.ts';
import { leaseScratch } from './scratch.ts';

/**
 * OBJ bytes copied into the scratch memory per call of the line kernel (readObjLines in
 * assembly/kernels.ts), what one call may add, and where each goes in the scratch memory.
 */
const WINDOW = 1 << 20;
const RUN_VERTS = 16_384;
const RUN_INDICES = 65_536;
const RUN_FACES = 16_384;
const AT_INDICES = RUN_VERTS * 24;
const AT_FACES = AT_INDICES + RUN_INDICES * 4;
const AT_WINDOW = AT_FACES + RUN_FACES * 4;

/**
 * OBJ geometry only: v and f (any polygon size, fan-triangulated as slicers and the
 * reference do), negative indices, groups/objects/materials ignored. Faces are resolved
 * after the whole file is read so forward references work.
 *
 * It takes what PrusaSlicer's reader (src/libslic3r/Format/objparser.cpp, OBJ.cpp) takes:
 * blanks and tabs anywhere, CR, LF or CR LF, `f` corners as `v`, `v/vt`, `v/vt/vn` or `v//vn`,
 * `+` on an index, words after a vertex's z (w, or MeshLab's r g b) ignored, numbers in any
 * form strtod reads (hex too), an empty `f` skipped, unknown statements skipped. Beyond it,
 * without ambiguity: a word starting with `#` ends a v or f statement (a comment), and a `\`
 * ending a line continues an `f` (or a `v` still short of its z) on the next, as the OBJ
 * specification has it. Where PrusaSlicer drops a line silently — a vertex short of a number,
 * a word that is not one, a face of one or two corners — vertex numbering would shift or
 * geometry go missing, so those are refused as `malformed`.
 *
 * The common lines (plain `v x y z` and `f` with integer indices) and the lines skipped are
 * read by the line kernel; whatever it declines — and every error — is read by the
 * TypeScript loop below, a line at a time, which is the reference the kernel mirrors.
 */
export interface ParseObjOptions {
  /** false: read every line in TypeScript (the reference the line kernel is tested against). */
  lineKernel?: boolean;
}

export function parseObj(bytes: Uint8Array, opts: ParseObjOptions = {}): IndexedMesh {
  let lineKernel = opts.lineKernel ?? true;
  const len = bytes.length;
  let vx = new Float64Array(3 * 4096);
  let nv = 0;
  let fIdx = new Int32Array(4096);
  let nfi = 0;
  /** Where each face's indices start in fIdx. */
  let fStart = new Int32Array(1024);
  let nf = 0;
  let line = 0;
  let pos = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) pos = 3;
  const fail = (what: string): never => {
    throw new MeshError('malformed', `OBJ: ${what} on line ${line}.`);
  };
  let tris = 0;
  const lease = leaseScratch(AT_WINDOW + WINDOW);
  const { buffer, kernels } = lease;
  let windowFrom = 0;
  let windowEnd = 0;
  /** Reads lines from pos with the kernel, as long as it takes them; returns how many it took. */
  const kernelLines = (): number => {
    while ((nv + RUN_VERTS) * 3 > vx.length && vx.length / 3 < MESH_LIMITS.maxVertices)
      vx = grown(vx, new Float64Array(vx.length * 2));
    while (nfi + RUN_INDICES > fIdx.length) fIdx = grown(fIdx, new Int32Array(fIdx.length * 2));
    while (nf + RUN_FACES + 1 > fStart.length) fStart = grown(fStart, new Int32Array(fStart.length * 2));
    for (;;) {
      if (pos < windowFrom || pos >= windowEnd) copyWindow();
      const stop = kernels.readObjLines(
        AT_WINDOW + (pos - windowFrom),
        AT_WINDOW + (windowEnd - windowFrom),
        windowEnd === len,
        nv,
        0,
        Math.min(RUN_VERTS, vx.length / 3 - nv),
        AT_INDICES,
        RUN_INDICES,
        AT_FACES,
        RUN_FACES,
        MESH_LIMITS.maxTriangles - tris,
      );
      const lines = kernels.objCounts(0);
      const verts = kernels.objCounts(1);
      const indices = kernels.objCounts(2);
      const faces = kernels.objCounts(3);
      // The kernel takes indices of up to 9 digits; one past the vertex limit is refused on its
      // line by the reader below, so this call's lines are left to it (the file fails there).
      const added = new Int32Array(buffer, AT_INDICES, indices);
      for (let k = 0; k < indices; k++) {
        if (added[k]! >= MESH_LIMITS.maxVertices) {
          lineKernel = false;
          return 0;
        }
      }
      vx.set(new Float64Array(buffer, 0, verts * 3), nv * 3);
      fIdx.set(added, nfi);
      const starts = new Int32Array(buffer, AT_FACES, faces);
      for (let k = 0; k < faces; k++) fStart[nf + k] = nfi + starts[k]!;
      nv += verts;
      nfi += indices;
      nf += faces;
      tris += kernels.objCounts(4);
      line += lines;
      pos = windowFrom + (stop - AT_WINDOW);
      // A line that runs past the window's end is retried at the start of a new window.
      if (lines > 0 || pos === windowFrom || windowEnd === len) return lines;
      copyWindow();
    }
  };
  const copyWindow = (): void => {
    windowFrom = pos;
    windowEnd = Math.min(len, pos + WINDOW);
    new Uint8Array(buffer, AT_WINDOW, windowEnd - windowFrom).set(bytes.subarray(windowFrom, windowEnd));
  };
  /**
   * The statement being read: the current line ends at eol, its words at end (before a final
   * `\`, which continues the statement on the next line: cont), and i is the next byte.
   */
  let i = 0;
  let eol = 0;
  let end = 0;
  let cont = false;
  const startLine = (from: number): void => {
    eol = from;
    while (eol < len && bytes[eol] !== 10 && bytes[eol] !== 13) eol++;
    end = eol;
    while (end > from && (bytes[end - 1] === 32 || bytes[end - 1] === 9)) end--;
    cont = end > from && bytes[end - 1] === 92; /* \ */
    if (cont) end--;
    i = from;
  };
  /** Moves to the statement's next word, across continued lines; false at its end or at a `#` comment. */
  const nextWord = (): boolean => {
    for (;;) {
      while (i < end && (bytes[i] === 32 || bytes[i] === 9)) i++;
      if (i < end) return bytes[i] !== 35; /* # */
      if (!cont) return false;
      let from = eol;
      if (from < len && bytes[from] === 13) from++;
      if (from < len && bytes[from] === 10) from++;
      if (from >= len) return false;
      line++;
      startLine(from);
    }
  };
  try {
    while (pos < len) {
      if (lineKernel && kernelLines() > 0 && pos >= len) break;
      line++;
      startLine(pos);
      while (i < eol && (bytes[i] === 32 || bytes[i] === 9)) i++;
      const c0 = bytes[i];
      const c1 = bytes[i + 1];
      const sep = c1 === 32 || c1 === 9;
      if (c0 === 118 /* v */ && sep) {
        i += 1;
        if ((nv + 1) * 3 > vx.length) {
          if (nv >= MESH_LIMITS.maxVertices)
            throw new MeshError(
              'too-many-triangles',
              `The OBJ has more than ${MESH_LIMITS.maxVertices} vertices.`,
            );
          vx = grown(vx, new Float64Array(vx.length * 2));
        }
        // Words after z (w, or the r g b colours MeshLab writes) are ignored, as PrusaSlicer does.
        for (let k = 0; k < 3; k++) {
          if (!nextWord()) fail('a vertex needs x, y and z');
          const s = i;
          while (i < end && bytes[i] !== 32 && bytes[i] !== 9) i++;
          let v = parseFloatBytes(bytes, s, i);
          if (v !== v) v = parseHexFloatBytes(bytes, s, i);
          if (!Number.isFinite(v)) fail('a vertex coordinate is not a number');
          vx[nv * 3 + k] = v;
        }
        nv++;
      } else if (c0 === 102 /* f */ && sep) {
        i += 1;
        const start = nfi;
        while (nextWord()) {
          const s = i;
          while (i < end && bytes[i] !== 47 /* / */ && bytes[i] !== 32 && bytes[i] !== 9) i++;
          const raw = parseFloatBytes(bytes, s, i);
          if (!Number.isInteger(raw) || raw === 0) fail('a face index is not a non-zero integer');
          // No model can reach past the vertex limit; checked before the index is stored as 32 bits,
          // where 4294967297 would wrap to 1 and 2^53 to -1.
          if (raw > MESH_LIMITS.maxVertices) {
            fail(
              `face index ${String.fromCharCode(...bytes.subarray(s, Math.min(i, s + 40)))} is out of range (a model has at most ${MESH_LIMITS.maxVertices} vertices)`,
            );
          }
          // Negative indices count back from the vertices read so far.
          const idx = raw < 0 ? nv + raw : raw - 1;
          if (idx < 0) fail('a relative face index points before the first vertex');
          while (i < end && bytes[i] !== 32 && bytes[i] !== 9) i++;
          if (nfi >= fIdx.length) fIdx = grown(fIdx, new Int32Array(fIdx.length * 2));
          fIdx[nfi++] = idx;
        }
        const count = nfi - start;
        // An empty `f` names no face; PrusaSlicer skips it too.
        if (count > 0) {
          if (count < 3) fail('a face needs at least 3 vertices');
          tris += count - 2;
          if (tris > MESH_LIMITS.maxTriangles) {
            throw new MeshError(
              'too-many-triangles',
              `The OBJ has more than ${MESH_LIMITS.maxTriangles} triangles.`,
            );
          }
          if (nf + 2 > fStart.length) fStart = grown(fStart, new Int32Array(fStart.length * 2));
          fStart[nf++] = start;
        }
      }
      // Every other statement (vt, vn, g, o, usemtl, comments, ...) carries no geometry we need.
      pos = eol;
      if (pos < len && bytes[pos] === 13) pos++;
      if (pos < len && bytes[pos] === 10) pos++;
    }
  } finally {
    lease.release();
  }
  if (nf === 0) {
    throw new MeshError(
      'empty',
      nv === 0 ? 'The OBJ has no vertices or faces.' : 'The OBJ has vertices but no faces.',
    );
  }
  fStart[nf] = nfi;
  // Only vertices a face uses enter the mesh (the builder's promise to the topology), welded in one call.
  const slot = new Int32Array(nv).fill(-1);
  const usedBits = new Float32Array(Math.min(nv, nfi) * 3);
  let nu = 0;
  for (let k = 0; k < nfi; k++) {
    const v = fIdx[k]!;
    if (v >= nv)
      throw new MeshError('malformed', `OBJ: a face refers to vertex ${v + 1} but there are only ${nv}.`);
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
    for (let f = 0; f < nf; f++) {
      const s = fStart[f]!;
      const e = fStart[f + 1]!;
      const a = id(fIdx[s]!);
      for (let k = s + 1; k + 1 < e; k++) b.triangle(a, id(fIdx[k]!), id(fIdx[k + 1]!));
    }
    return b.finish();
  } finally {
    b.dispose();
  }
}

function grown<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
