import type { IndexedMesh } from './builder.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { parse3mf } from './threemf.ts';
import { detectFormat, type ModelFormat } from './sniff.ts';
import { parseAsciiStl, parseBinaryStl } from './stl.ts';
import { parseObj } from './obj.ts';
import { computeTopology, TRI_NONMANIFOLD, TRI_OPEN, TRI_WINDING } from './topology.ts';

export const BUILD_VOLUME_MM: readonly [number, number, number] = [250, 210, 210];
/** A face is an overhang when it leans more than this from vertical, facing down. */
export const OVERHANG_ANGLE_DEG = 45;
/** Faces this close to an object's lowest point rest on the bed and need no support. */
const BED_CONTACT_MM = 0.01;
/** Cap on triangle indices listed per problem, so a JSON response stays small. */
const MAX_LISTED = 50_000;

export type ProblemCode =
  | 'open-edges'
  | 'non-manifold-edges'
  | 'inconsistent-winding'
  | 'degenerate-triangles'
  | 'overhangs'
  | 'exceeds-build-volume'
  | 'inverted-normals'
  | 'tiny-model'
  | 'support-object-in-component';

export interface Problem {
  code: ProblemCode;
  severity: 'error' | 'warning' | 'info';
  message: string;
  /** How many edges, triangles or mm² the problem covers (see message). */
  count: number;
  /** Affected triangle indices (at most 50,000), for highlighting in a viewer. */
  triangles?: Uint32Array;
}

export interface Printability {
  openEdges: number;
  nonManifoldEdges: number;
  inconsistentWindingEdges: number;
  degenerateTriangles: number;
  overhangAreaMm2: number;
  watertight: boolean;
  fitsBuildVolume: boolean;
  buildVolumeMm: readonly [number, number, number];
}

export interface BoundingBox {
  min: [number, number, number];
  max: [number, number, number];
  size: [number, number, number];
}

export interface ModelAnalysis {
  format: ModelFormat;
  scale: number;
  triangleCount: number;
  vertexCount: number;
  /** Signed-tetrahedron sum over the triangles as stored (mm³, units, transforms and scale applied). */
  volumeMm3: number;
  surfaceAreaMm2: number;
  bbox: BoundingBox;
  shells: number;
  /** Printable objects (3MF build items); each is placed on the bed on its own. */
  objectCount: number;
  printability: Printability;
  problems: Problem[];
  /** Welded mesh for viewers, thumbnails and the estimate. */
  mesh: IndexedMesh;
}

export interface AnalyzeOptions {
  fileName?: string;
  /** Uniform scale applied after units (e.g. 1000 for a model drawn in metres). */
  scale?: number;
}

export async function parseModel(bytes: Uint8Array, fileName?: string): Promise<{ format: ModelFormat; mesh: IndexedMesh; warnings: string[] }> {
  if (bytes.length > MESH_LIMITS.maxFileBytes) {
    throw new MeshError('too-large', `The file is ${bytes.length} bytes; the limit is ${MESH_LIMITS.maxFileBytes}.`);
  }
  const format = detectFormat(bytes, fileName);
  try {
    switch (format) {
      case 'stl-binary':
        return { format, mesh: parseBinaryStl(bytes), warnings: [] };
      case 'stl-ascii':
        return { format, mesh: parseAsciiStl(bytes), warnings: [] };
      case 'obj':
        return { format, mesh: parseObj(bytes), warnings: [] };
      case '3mf': {
        const r = await parse3mf(bytes);
        return { format, mesh: r, warnings: r.warnings };
      }
    }
  } catch (e) {
    if (e instanceof MeshError) throw e;
    // Anything else is a parser bug on hostile input; it must still surface as a domain error.
    if (e instanceof RangeError) throw new MeshError('too-large', `The model needs more memory than allowed (${e.message}).`);
    throw new MeshError('malformed', `The ${format} file could not be read (${(e as Error)?.message ?? String(e)}).`);
  }
}

export async function analyzeModel(bytes: Uint8Array, opts: AnalyzeOptions = {}): Promise<ModelAnalysis> {
  const scale = opts.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new MeshError('malformed', 'The scale must be a positive number.');
  const { format, mesh, warnings } = await parseModel(bytes, opts.fileName);
  const pos = mesh.positions;
  if (scale !== 1) for (let i = 0; i < pos.length; i++) pos[i] = pos[i]! * scale;
  return analyzeMesh(format, mesh, scale, warnings);
}

function listed(flags: Uint8Array, mask: number, n: number): Uint32Array {
  const out = new Uint32Array(Math.min(n, MAX_LISTED));
  let k = 0;
  for (let t = 0; t < flags.length && k < out.length; t++) if (flags[t]! & mask) out[k++] = t;
  return out.subarray(0, k);
}

export function analyzeMesh(format: ModelFormat, mesh: IndexedMesh, scale: number, warnings: string[] = []): ModelAnalysis {
  const { positions: p, indices: idx, parts } = mesh;
  const nt = idx.length / 3;
  const nv = p.length / 3;
  let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]!, y = p[i + 1]!, z = p[i + 2]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  const topo = computeTopology(idx, nv);
  const flags = topo.flags;
  const DEGEN = 8, OVER = 16;
  const cosLimit = Math.cos((OVERHANG_ANGLE_DEG * Math.PI) / 180);
  let vol6 = 0;
  let area2 = 0;
  let overhang2 = 0;
  let degenerate = 0;
  let overhangTris = 0;
  let fits = true;
  let footprint = 0;
  for (let part = 0; part + 1 < parts.length; part++) {
    const t0 = parts[part]!, t1 = parts[part + 1]!;
    let pminZ = Infinity, pminX = Infinity, pminY = Infinity, pmaxX = -Infinity, pmaxY = -Infinity, pmaxZ = -Infinity;
    if (parts.length === 2 && topo.usedVertices === nv) {
      // One object that uses every vertex: its box is the vertex box, no gather needed.
      pminX = minX; pminY = minY; pminZ = minZ; pmaxX = maxX; pmaxY = maxY; pmaxZ = maxZ;
    } else for (let t = t0; t < t1; t++) {
      for (let k = 0; k < 3; k++) {
        const o = idx[t * 3 + k]! * 3;
        const x = p[o]!, y = p[o + 1]!, z = p[o + 2]!;
        if (x < pminX) pminX = x;
        if (x > pmaxX) pmaxX = x;
        if (y < pminY) pminY = y;
        if (y > pmaxY) pmaxY = y;
        if (z < pminZ) pminZ = z;
        if (z > pmaxZ) pmaxZ = z;
      }
    }
    const sx = pmaxX - pminX, sy = pmaxY - pminY, sz = pmaxZ - pminZ;
    if (sx > BUILD_VOLUME_MM[0] || sy > BUILD_VOLUME_MM[1] || sz > BUILD_VOLUME_MM[2]) fits = false;
    footprint += sx * sy;
    const bed = pminZ + BED_CONTACT_MM;
    for (let t = t0; t < t1; t++) {
      const ia = idx[t * 3]!, ib = idx[t * 3 + 1]!, ic = idx[t * 3 + 2]!;
      const ax = p[ia * 3]!, ay = p[ia * 3 + 1]!, az = p[ia * 3 + 2]!;
      const bx = p[ib * 3]!, by = p[ib * 3 + 1]!, bz = p[ib * 3 + 2]!;
      const cx = p[ic * 3]!, cy = p[ic * 3 + 1]!, cz = p[ic * 3 + 2]!;
      // Volume uses the stored coordinates with the origin at 0 so open meshes match the reference sum.
      vol6 += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
      const ux = bx - ax, uy = by - ay, uz = bz - az;
      const vx = cx - ax, vy = cy - ay, vz = cz - az;
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      area2 += len;
      const wx = cx - bx, wy = cy - by, wz = cz - bz;
      const maxEdge2 = Math.max(ux * ux + uy * uy + uz * uz, vx * vx + vy * vy + vz * vz, wx * wx + wy * wy + wz * wz);
      if (ia === ib || ib === ic || ia === ic || len <= 1e-6 * maxEdge2) {
        degenerate++;
        flags[t]! |= DEGEN;
        continue;
      }
      if (nz < -cosLimit * len && (az > bed || bz > bed || cz > bed)) {
        overhang2 += len;
        overhangTris++;
        flags[t]! |= OVER;
      }
    }
  }
  if (footprint > BUILD_VOLUME_MM[0] * BUILD_VOLUME_MM[1]) fits = false;
  const volume = vol6 / 6;
  const overhangArea = overhang2 / 2;
  const problems: Problem[] = [];
  const size: [number, number, number] = nt ? [maxX - minX, maxY - minY, maxZ - minZ] : [0, 0, 0];
  if (topo.openEdges) {
    problems.push({
      code: 'open-edges',
      severity: 'warning',
      message: `The mesh has ${topo.openEdges} open (boundary) edges, so it is not watertight; the slicer has to guess where the inside is.`,
      count: topo.openEdges,
      triangles: listed(flags, TRI_OPEN, nt),
    });
  }
  if (topo.nonManifoldEdges) {
    problems.push({
      code: 'non-manifold-edges',
      severity: 'warning',
      message: `${topo.nonManifoldEdges} edges are shared by more than two triangles (non-manifold).`,
      count: topo.nonManifoldEdges,
      triangles: listed(flags, TRI_NONMANIFOLD, nt),
    });
  }
  if (topo.inconsistentEdges) {
    problems.push({
      code: 'inconsistent-winding',
      severity: 'warning',
      message: `${topo.inconsistentEdges} edges join triangles whose windings disagree (some faces point inwards).`,
      count: topo.inconsistentEdges,
      triangles: listed(flags, TRI_WINDING, nt),
    });
  }
  if (degenerate) {
    problems.push({
      code: 'degenerate-triangles',
      severity: 'info',
      message: `${degenerate} triangles have (almost) zero area.`,
      count: degenerate,
      triangles: listed(flags, DEGEN, nt),
    });
  }
  if (overhangArea > 0.5) {
    problems.push({
      code: 'overhangs',
      severity: 'info',
      message: `${overhangArea.toFixed(1)} mm² of downward faces lean more than ${OVERHANG_ANGLE_DEG}° from vertical and may need supports.`,
      count: Math.round(overhangArea * 100) / 100,
      triangles: listed(flags, OVER, overhangTris),
    });
  }
  if (!fits) {
    problems.push({
      code: 'exceeds-build-volume',
      severity: 'error',
      message: `The model (${size.map((s) => s.toFixed(1)).join(' x ')} mm) does not fit the ${BUILD_VOLUME_MM.join(' x ')} mm build volume.`,
      count: 1,
    });
  }
  if (volume < 0 && topo.openEdges === 0) {
    problems.push({
      code: 'inverted-normals',
      severity: 'warning',
      message: 'The mesh is inside out (negative volume): its faces point inwards.',
      count: 1,
    });
  }
  if (Math.max(...size) < 2) {
    problems.push({
      code: 'tiny-model',
      severity: 'warning',
      message: `The model is only ${Math.max(...size).toFixed(3)} mm across; it was probably drawn in other units (try a scale).`,
      count: 1,
    });
  }
  if (warnings.includes('support-component')) {
    problems.push({
      code: 'support-object-in-component',
      severity: 'warning',
      message: 'A 3MF component refers to a support object, which the 3MF core spec does not allow; it is counted as part of the model.',
      count: 1,
    });
  }
  return {
    format,
    scale,
    triangleCount: nt,
    vertexCount: nv,
    volumeMm3: volume,
    surfaceAreaMm2: area2 / 2,
    bbox: { min: [minX, minY, minZ], max: [maxX, maxY, maxZ], size },
    shells: topo.shells,
    objectCount: parts.length - 1,
    printability: {
      openEdges: topo.openEdges,
      nonManifoldEdges: topo.nonManifoldEdges,
      inconsistentWindingEdges: topo.inconsistentEdges,
      degenerateTriangles: degenerate,
      overhangAreaMm2: overhangArea,
      watertight: topo.openEdges === 0 && topo.nonManifoldEdges === 0,
      fitsBuildVolume: fits,
      buildVolumeMm: BUILD_VOLUME_MM,
    },
    problems,
    mesh,
  };
}
