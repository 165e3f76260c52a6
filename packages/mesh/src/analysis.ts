import type { IndexedMesh } from './builder.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { parse3mf } from './threemf.ts';
import { detectFormat, type ModelFormat } from './sniff.ts';
import { parseAsciiStl, parseBinaryStl } from './stl.ts';
import { parseObj } from './obj.ts';
import { computeTopology, TRI_NONMANIFOLD, TRI_OPEN, TRI_WINDING } from './topology.ts';
import { leaseScratch } from './scratch.ts';
import { geometryWorkBytes, OVERHANG_ANGLE_DEG, TRI_DEGENERATE, TRI_OVERHANG, TriangleGeometry } from './triangle-geometry.ts';

export const BUILD_VOLUME_MM: readonly [number, number, number] = [250, 210, 210];
export { OVERHANG_ANGLE_DEG };
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
  if (scale !== 1) {
    for (let i = 0; i < pos.length; i++) pos[i] = pos[i]! * scale;
    delete mesh.partGeometry; // gathered before the scale
  }
  return analyzeMesh(format, mesh, scale, warnings);
}

function listed(flags: Uint8Array, mask: number, n: number): Uint32Array {
  const out = new Uint32Array(Math.min(n, MAX_LISTED));
  let k = 0;
  for (let t = 0; t < flags.length && k < out.length; t++) if (flags[t]! & mask) out[k++] = t;
  return out.subarray(0, k);
}

/** Triangles gathered per kernel call in objectGeometry. */
const GATHER_CHUNK = 4096;

/**
 * The per-object sums from the indexed mesh, for parsers that did not gather them (see
 * TriangleGeometry): the positions are copied into the scratch memory once, and each chunk of
 * triangles has its corners gathered there (gatherCorners) before it is summed.
 */
function objectGeometry(mesh: IndexedMesh): TriangleGeometry[] {
  const { positions: p, indices: idx, parts } = mesh;
  const flags = new Uint8Array(idx.length / 3);
  const indicesAt = (p.length * 4 + 7) & ~7;
  const cornersAt = indicesAt + GATHER_CHUNK * 12;
  const sameAt = cornersAt + GATHER_CHUNK * 36;
  const workAt = sameAt + GATHER_CHUNK;
  const lease = leaseScratch(workAt + geometryWorkBytes(GATHER_CHUNK));
  try {
    const { buffer, kernels } = lease;
    new Float32Array(buffer, 0, p.length).set(p);
    const objects: TriangleGeometry[] = [];
    for (let part = 0; part + 1 < parts.length; part++) {
      const g = new TriangleGeometry(flags);
      for (let t0 = parts[part]!, end = parts[part + 1]!; t0 < end; t0 += GATHER_CHUNK) {
        const count = Math.min(GATHER_CHUNK, end - t0);
        new Uint32Array(buffer, indicesAt, count * 3).set(idx.subarray(t0 * 3, (t0 + count) * 3));
        kernels.gatherCorners(0, indicesAt, count, cornersAt, sameAt);
        g.addBatch(lease, cornersAt, sameAt, workAt, t0, count);
      }
      g.finish();
      objects.push(g);
    }
    return objects;
  } finally {
    lease.release();
  }
}

export function analyzeMesh(format: ModelFormat, mesh: IndexedMesh, scale: number, warnings: string[] = []): ModelAnalysis {
  const { positions: p, indices: idx, parts } = mesh;
  const nt = idx.length / 3;
  const nv = p.length / 3;
  const objects = mesh.partGeometry ?? objectGeometry(mesh);
  const flags = objects[0]!.flags; // one array, shared by every object's sums
  const topo = computeTopology(idx, nv, flags);
  let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  let vol6 = 0;
  let area2 = 0;
  let overhangArea = 0;
  let degenerate = 0;
  let overhangTris = 0;
  let fits = true;
  let footprint = 0;
  for (const g of objects) {
    const sx = g.maxX - g.minX, sy = g.maxY - g.minY, sz = g.maxZ - g.minZ;
    if (sx > BUILD_VOLUME_MM[0] || sy > BUILD_VOLUME_MM[1] || sz > BUILD_VOLUME_MM[2]) fits = false;
    footprint += sx * sy;
    vol6 += g.vol6;
    area2 += g.area2;
    overhangArea += g.overhangAreaMm2;
    overhangTris += g.overhangTriangles;
    degenerate += g.degenerate;
    minX = Math.min(minX, g.minX);
    minY = Math.min(minY, g.minY);
    minZ = Math.min(minZ, g.minZ);
    maxX = Math.max(maxX, g.maxX);
    maxY = Math.max(maxY, g.maxY);
    maxZ = Math.max(maxZ, g.maxZ);
  }
  if (footprint > BUILD_VOLUME_MM[0] * BUILD_VOLUME_MM[1]) fits = false;
  const volume = vol6 / 6;
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
      triangles: listed(flags, TRI_DEGENERATE, nt),
    });
  }
  if (overhangArea > 0.5) {
    problems.push({
      code: 'overhangs',
      severity: 'info',
      message: `${overhangArea.toFixed(1)} mm² of downward faces lean more than ${OVERHANG_ANGLE_DEG}° from vertical and may need supports.`,
      count: Math.round(overhangArea * 100) / 100,
      triangles: listed(flags, TRI_OVERHANG, overhangTris),
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
