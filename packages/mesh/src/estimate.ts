import type { ModelAnalysis } from './analysis.ts';
import { fulfilmentCostUsd } from '@layerline/contracts';
import { densityOf, resolveSettings, type PrintSettings, type PrintSettingsInput } from './settings.ts';
import { countCuts, sliceTriangles } from './slicing/slice.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { LayerRasterizer, type Grid } from './slicing/raster.ts';
import { linesTime, moveTime } from './slicing/motion.ts';

/**
 * Constants measured on synthetic shapes (cubes, cylinders, thin walls, towers) sliced
 * by PrusaSlicer 2.5 with the default profile, never on the corpus models. Each one
 * scales a physical quantity derived from the settings, so they carry over to other
 * nozzle, layer and infill settings.
 */
const CAL = {
  /** Gyroid extrudes this fraction of the nominal fill density (PrusaSlicer DensityAdjust net effect). */
  gyroidDensity: 0.98,
  /** Infill anchors and wall connections add this many line lengths per mm of sparse outline (infill_anchor 600 %). */
  anchorFraction: 0.26,
  /** Retracting travels per contour (to its loops) and per island (to its infill) per layer. */
  travelsPerContour: 1,
  travelsPerIsland: 1,
  /** Share of gyroid line ends that anchors do not join (round synthetic shapes: 0.6-0.65). */
  unanchoredFraction: 0.6,
  /** Gyroid polylines turn continuously; each straight piece is about this many line spacings long. */
  gyroidPieceSpacings: 1.2,
} as const;

export interface PrintEstimate {
  grams: number;
  printSeconds: number;
  filamentMm: number;
  /** Extruded plastic volume (mm³). */
  extrudedMm3: number;
  costUsd: number;
  layers: number;
  breakdown: {
    perimeterG: number;
    skinG: number;
    bridgeG: number;
    infillG: number;
    perimeterS: number;
    skinS: number;
    infillS: number;
    travelS: number;
    slowdownS: number;
  };
  settings: PrintSettings;
}

interface LayerAcc {
  extrudeS: number;
  fixedS: number;
  extrudeLen: number;
}

const MAX_CELLS = 200_000;

interface ObjectPlan {
  part: number;
  t0: number;
  t1: number;
  minX: number;
  minY: number;
  minZ: number;
  maxX: number;
  maxY: number;
  layers: number;
  cell: number;
}

/**
 * Each object's box, layer count, cuts and grid cell, and the refusal of work beyond the bounds
 * (MESH_LIMITS.maxObjectLayers, maxLayerCuts) before any per-layer array exists. Cells small
 * enough to resolve the perimeter band, at most MAX_CELLS per layer; and over all layers of all
 * objects at most maxEstimateCells, beyond which every grid coarsens by the same factor (a 1.5 m
 * model or a plate of many objects degrades the estimate gracefully instead of taking a minute).
 */
function planObjects(p: Float32Array, idx: Uint32Array, parts: Uint32Array | number[], h: number, h1: number, w: number): ObjectPlan[] {
  const plans: ObjectPlan[] = [];
  let totalLayers = 0;
  let totalCuts = 0;
  let totalCells = 0;
  for (let part = 0; part + 1 < parts.length; part++) {
    const t0 = parts[part]!, t1 = parts[part + 1]!;
    let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
    for (let t = t0 * 3; t < t1 * 3; t++) {
      const o = idx[t]! * 3;
      const x = p[o]!, y = p[o + 1]!, z = p[o + 2]!;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
    }
    const H = maxZ - minZ;
    if (!(H >= h1 / 2)) continue;
    const layers = Math.max(1, Math.round((H - h1) / h) + 1);
    totalLayers += layers;
    if (totalLayers > MESH_LIMITS.maxObjectLayers) {
      throw new MeshError(
        'too-complex',
        `The model is too complex to estimate at ${h} mm layers: its objects need more than ${MESH_LIMITS.maxObjectLayers.toLocaleString('en-US')} layer slices in all (one object is ${H.toFixed(1)} mm tall). Use thicker layers, or fewer or smaller objects.`,
      );
    }
    totalCuts += countCuts(p, idx, t0, t1, minZ, h1 - h / 2, h, layers);
    if (totalCuts > MESH_LIMITS.maxLayerCuts) {
      throw new MeshError(
        'too-complex',
        `The model is too complex to estimate at ${h} mm layers: slicing it cuts its triangles more than ${MESH_LIMITS.maxLayerCuts.toLocaleString('en-US')} times. Use thicker layers or a simpler mesh.`,
      );
    }
    let cell = Math.max(w / 2, 0.2);
    const W = maxX - minX, D = maxY - minY;
    if ((W / cell) * (D / cell) > MAX_CELLS) cell = Math.sqrt((W * D) / MAX_CELLS);
    totalCells += ((W * D) / (cell * cell)) * layers;
    plans.push({ part, t0, t1, minX, minY, minZ, maxX, maxY, layers, cell });
  }
  if (totalCells > MESH_LIMITS.maxEstimateCells) {
    const k = Math.sqrt(totalCells / MESH_LIMITS.maxEstimateCells);
    for (const plan of plans) plan.cell *= k;
  }
  return plans;
}

/** Per-layer figures, for calibration tools and debugging. */
export interface LayerTrace {
  part: number;
  layer: number;
  outlineMm: number;
  islands: number;
  perimeterMm2: number;
  solidMm2: number;
  topMm2: number;
  bridgeMm2: number;
  sparseMm2: number;
  seconds: number;
}

export function estimatePrint(analysis: ModelAnalysis, input: PrintSettingsInput = {}, trace?: (t: LayerTrace) => void): PrintEstimate {
  const s = resolveSettings(input);
  const { positions: p, indices: idx, parts } = analysis.mesh;
  const h = s.layerHeightMm;
  const h1 = s.firstLayerHeightMm;
  const w = s.extrusionWidthMm;
  const sp = w - h * (1 - Math.PI / 4); // PrusaSlicer Flow::spacing for a rounded rectangle
  // Loops sit at spacing `sp`; the first one's outer edge is (w - sp)/2 inside the outline, so
  // the band they fill is p*sp wide. Solid infill overlaps it by infill_overlap (25 % of sp).
  const perimBand = s.perimeters * sp;
  const solidFrom = Math.max(0, perimBand - (s.perimeters > 0 ? 0.25 * sp : 0));
  const bridgeFactor = (Math.PI / 4) * s.nozzleMm * s.nozzleMm / ((s.nozzleMm + 0.05) * h);
  const sparseDensity = (s.infillPercent / 100) * CAL.gyroidDensity;
  const topSpacing = s.topWidthMm - h * (1 - Math.PI / 4);
  const layerAcc: LayerAcc[] = [];
  let vPerim = 0, vSolid = 0, vBridge = 0, vSparse = 0;
  let tPerim = 0, tSkin = 0, tInfill = 0, tTravel = 0;

  // Plan every object before any per-layer work: its box, layers, cuts and grid cell. The sums
  // are bounded (MESH_LIMITS) so no file under the upload limit can take the machine.
  const plans = planObjects(p, idx, parts, h, h1, w);
  for (const plan of plans) {
    const { t0, t1, minX, minY, minZ, maxX, maxY, layers, cell } = plan;
    const segs = sliceTriangles(p, idx, t0, t1, minZ, h1 - h / 2 + (h1 === h ? 0 : 0), h, layers);
    const W = maxX - minX, D = maxY - minY;
    const margin = 2;
    const grid: Grid = {
      x0: minX - margin * cell,
      y0: minY - margin * cell,
      cell,
      nx: Math.ceil(W / cell) + 2 * margin + 1,
      ny: Math.ceil(D / cell) + 2 * margin + 1,
    };
    const n = grid.nx * grid.ny;
    const cellArea = cell * cell;
    const rast = new LayerRasterizer(grid);
    const ringSize = s.topLayers + 1;
    const ring = Array.from({ length: ringSize }, () => new Uint8Array(n));
    const ringD2 = Array.from({ length: ringSize }, () => new Float32Array(n));
    const below = new Uint8Array(n); // consecutive layers directly below where the cell is interior
    const belowRaw = new Uint8Array(n); // consecutive layers directly below where the cell is inside
    const core = new Uint8Array(n);
    const prevClass = new Uint8Array(n); // 0 empty, 1 perimeter, 2 solid, 3 sparse
    const cls = new Uint8Array(n);
    const label = new Int32Array(n);
    const stack = new Int32Array(n);
    const empty = new Uint8Array(0);
    // Squared distance (cells) beyond which a cell centre lies deeper than the overlap line.
    const solidFromCells = (solidFrom + cell / 2) / cell - 0.5;
    const sf2 = solidFromCells > 0 ? solidFromCells * solidFromCells : 0;
    const interior2 = sf2;
    const maskOf = (k: number): Uint8Array => (k >= 0 && k < layers ? ring[k % ringSize]! : empty);

    // Per-layer window (cells) around the cross-section, so small layers of a big object stay cheap.
    const win = new Int32Array(layers * 4);
    for (let L = 0; L < layers; L++) {
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (let k = segs.offsets[L]! * 4, e = segs.offsets[L + 1]! * 4; k < e; k += 2) {
        const x = segs.segs[k]!, y = segs.segs[k + 1]!;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      if (x1 < x0) {
        win.set([0, 0, 0, 0], L * 4);
        continue;
      }
      win[L * 4] = Math.max(0, Math.floor((x0 - grid.x0) / cell) - 2);
      win[L * 4 + 1] = Math.min(grid.nx, Math.ceil((x1 - grid.x0) / cell) + 3);
      win[L * 4 + 2] = Math.max(0, Math.floor((y0 - grid.y0) / cell) - 2);
      win[L * 4 + 3] = Math.min(grid.ny, Math.ceil((y1 - grid.y0) / cell) + 3);
    }
    const nx = grid.nx;

    const classify = (K: number): void => {
      const mask = maskOf(K);
      const c0 = win[K * 4]!, c1 = win[K * 4 + 1]!, r0 = win[K * 4 + 2]!, r1 = win[K * 4 + 3]!;
      const above: Uint8Array[] = [];
      for (let k = 1; k <= s.topLayers; k++) above.push(maskOf(K + k));
      const next = maskOf(K + 1);
      let perimCells = 0, solidCells = 0, topCells = 0, bridgeCells = 0, sparseCells = 0;
      let sparseEdges = 0;
      let islands = 0;
      let holes = 0;
      if (c1 > c0 && r1 > r0) {
        const dist2 = ringD2[K % ringSize]!;
        for (let r = r0; r < r1; r++) {
          for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
            label[i] = 0;
            if (!mask[i]) {
              cls[i] = 0;
              continue;
            }
            const d2 = dist2[i]!;
            let c = 1;
            if (d2 > sf2) {
              c = 3;
              // Solid unless the cell is interior (beyond the perimeter band) in every layer of the
              // top/bottom window: this gives top and bottom skins and, like PrusaSlicer's
              // ensure_vertical_shell_thickness, solid infill behind sloped walls.
              let tb = belowRaw[i]! < s.bottomLayers;
              if (!tb) for (let k = 0; k < above.length; k++) if (!(above[k]!.length && above[k]![i])) { tb = true; break; }
              if (tb) c = 2;
              else {
                let shell = below[i]! < s.bottomLayers;
                if (!shell) for (let k = 0; k < above.length; k++) if (above[k]![i] !== 2) { shell = true; break; }
                if (shell) c = 4;
              }
            }
            cls[i] = c;
          }
        }
        // PrusaSlicer opens the vertical-shell region by about half a spacing, so the thin
        // rings a gentle slope would add vanish; a one-cell opening does the same here.
        for (let r = r0 + 1; r < r1 - 1; r++) {
          for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
            core[i] = cls[i] === 4 && cls[i - 1]! % 2 === 0 && cls[i + 1]! % 2 === 0 && cls[i - nx]! % 2 === 0 && cls[i + nx]! % 2 === 0 && cls[i - 1] !== 0 && cls[i + 1] !== 0 && cls[i - nx] !== 0 && cls[i + nx] !== 0 ? 1 : 0;
          }
        }
        for (let r = r0 + 1; r < r1 - 1; r++) {
          for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
            if (cls[i] !== 4) continue;
            cls[i] = core[i] || core[i - 1] || core[i + 1] || core[i - nx] || core[i + nx] ? 5 : 3;
          }
        }
        for (let r = r0; r < r1; r++) for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) if (cls[i]! >= 4) cls[i] = 2;
        // solid_infill_below_area: small sparse islands are filled solid.
        const minArea = s.solidInfillBelowAreaMm2;
        for (let r = r0; r < r1; r++) {
          for (let i0 = r * nx + c0, e = r * nx + c1; i0 < e; i0++) {
            if (cls[i0] !== 3 || label[i0]) continue;
            let top = 0;
            stack[top++] = i0;
            label[i0] = 1;
            let count = 0;
            let edges = 0;
            while (top) {
              const j = stack[--top]!;
              count++;
              let q = j - 1;
              if (cls[q] === 3) { if (!label[q]) { label[q] = 1; stack[top++] = q; } } else edges++;
              q = j + 1;
              if (cls[q] === 3) { if (!label[q]) { label[q] = 1; stack[top++] = q; } } else edges++;
              q = j - nx;
              if (cls[q] === 3) { if (!label[q]) { label[q] = 1; stack[top++] = q; } } else edges++;
              q = j + nx;
              if (cls[q] === 3) { if (!label[q]) { label[q] = 1; stack[top++] = q; } } else edges++;
            }
            // PrusaSlicer measures the fill surface including the infill overlap.
            const islandArea = count * cellArea + edges * cell * (Math.PI / 4) * (perimBand - solidFrom);
            if (islandArea <= minArea) {
              stack[0] = i0;
              top = 1;
              cls[i0] = 2;
              while (top) {
                const j = stack[--top]!;
                let q = j - 1;
                if (cls[q] === 3) { cls[q] = 2; stack[top++] = q; }
                q = j + 1;
                if (cls[q] === 3) { cls[q] = 2; stack[top++] = q; }
                q = j - nx;
                if (cls[q] === 3) { cls[q] = 2; stack[top++] = q; }
                q = j + nx;
                if (cls[q] === 3) { cls[q] = 2; stack[top++] = q; }
              }
            }
          }
        }
        // Bridges: solid over air or sparse infill, ignoring strips too thin to bridge.
        const cand = (i: number) => cls[i] === 2 && (prevClass[i] === 0 || prevClass[i] === 3);
        for (let r = r0 + 1; r < r1 - 1; r++) {
          for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
            core[i] = cand(i) && cand(i - 1) && cand(i + 1) && cand(i - nx) && cand(i + nx) ? 1 : 0;
          }
        }
        const bridgeCore = (i: number) => cand(i) && (core[i] || core[i - 1] || core[i + 1] || core[i - nx] || core[i + nx]) === 1;
        for (let r = r0; r < r1; r++) {
          for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
            const c = cls[i]!;
            if (c === 0) continue;
            // Fractional coverage of the cell by each band, so a 0.2 mm grid resolves a 0.8 mm band.
            const db = Math.sqrt(dist2[i]!) * cell - cell / 2;
            const fp = (perimBand - db) / cell + 0.5;
            perimCells += fp >= 1 ? 1 : fp > 0 ? fp : 0;
            if (c === 2) {
              const fiRaw = (db - solidFrom) / cell + 0.5;
              const fi = fiRaw >= 1 ? 1 : fiRaw > 0 ? fiRaw : 0;
              if (K > 0 && bridgeCore(i)) bridgeCells += fi;
              else if (!(next.length && next[i])) topCells += fi;
              else solidCells += fi;
            } else if (c === 3) {
              const fsRaw = (db - perimBand) / cell + 0.5;
              sparseCells += fsRaw >= 1 ? 1 : fsRaw > 0 ? fsRaw : 0;
              if (cls[i + 1] !== 3) sparseEdges++;
              if (cls[i - 1] !== 3) sparseEdges++;
              if (cls[i + nx] !== 3) sparseEdges++;
              if (cls[i - nx] !== 3) sparseEdges++;
            }
          }
        }
        // Holes: background components that do not touch the window border (label 3).
        for (let r = r0 + 1; r < r1 - 1; r++) {
          for (let i0 = r * nx + c0 + 1, e = r * nx + c1 - 1; i0 < e; i0++) {
            if (mask[i0] || label[i0] === 3) continue;
            let top = 0;
            stack[top++] = i0;
            label[i0] = 3;
            let border = false;
            while (top) {
              const j = stack[--top]!;
              const jr = (j / nx) | 0, jc = j - jr * nx;
              if (jr <= r0 || jr >= r1 - 1 || jc <= c0 || jc >= c1 - 1) {
                border = true;
                continue;
              }
              let q = j - 1;
              if (!mask[q] && label[q] !== 3) { label[q] = 3; stack[top++] = q; }
              q = j + 1;
              if (!mask[q] && label[q] !== 3) { label[q] = 3; stack[top++] = q; }
              q = j - nx;
              if (!mask[q] && label[q] !== 3) { label[q] = 3; stack[top++] = q; }
              q = j + nx;
              if (!mask[q] && label[q] !== 3) { label[q] = 3; stack[top++] = q; }
            }
            if (!border) holes++;
          }
        }
        // Islands, for travel and loop lengths (label 2 = visited here).
        for (let r = r0; r < r1; r++) {
          for (let i0 = r * nx + c0, e = r * nx + c1; i0 < e; i0++) {
            if (!mask[i0] || label[i0] === 2) continue;
            islands++;
            let top = 0;
            stack[top++] = i0;
            label[i0] = 2;
            while (top) {
              const j = stack[--top]!;
              let q = j - 1;
              if (mask[q] && label[q] !== 2) { label[q] = 2; stack[top++] = q; }
              q = j + 1;
              if (mask[q] && label[q] !== 2) { label[q] = 2; stack[top++] = q; }
              q = j - nx;
              if (mask[q] && label[q] !== 2) { label[q] = 2; stack[top++] = q; }
              q = j + nx;
              if (mask[q] && label[q] !== 2) { label[q] = 2; stack[top++] = q; }
            }
          }
        }
      }
      // Perimeter cells that became solid still carry their perimeter extrusion.
      const lh = K === 0 ? h1 : h;
      const outline = segs.outline[K]!;
      const aPerim = perimCells * cellArea;
      const aSolid = solidCells * cellArea;
      const aTop = topCells * cellArea;
      const aBridge = bridgeCells * cellArea;
      const aSparse = sparseCells * cellArea;
      const sparseOutline = sparseEdges * cell * (Math.PI / 4);
      const volPerim = aPerim * lh;
      const volSolid = (aSolid + aTop) * lh;
      const volBridge = aBridge * lh * bridgeFactor;
      const volSparse = s.infillPercent > 0 ? (sparseDensity * aSparse + CAL.anchorFraction * sp * sparseOutline * (aSparse > 0 ? 1 : 0)) * lh : 0;
      vPerim += volPerim;
      vSolid += volSolid;
      vBridge += volBridge;
      vSparse += volSparse;

      // Time.
      const first = K === 0;
      const sp1 = s.speeds;
      const capV = (v: number, width: number) => Math.min(v, sp1.maxVolumetric / (lh * (width - lh * (1 - Math.PI / 4))));
      const contours = islands + holes;
      const loopLen = contours > 0 ? outline / contours : outline;
      const perimLen = volPerim / (lh * sp);
      const extLen = Math.min(outline, perimLen);
      const innerLen = Math.max(0, perimLen - extLen);
      const small = loopLen < 2 * Math.PI * 6.5;
      const vExt = capV(first ? sp1.firstLayer : small ? Math.min(sp1.smallPerimeter, sp1.externalPerimeter) : sp1.externalPerimeter, w);
      const vIn = capV(first ? sp1.firstLayer : small ? sp1.smallPerimeter : sp1.perimeter, w);
      const aP = first ? s.accel.firstLayer : s.accel.perimeter;
      const jerk = s.jerkMmS;
      const tp = linesTime(extLen, loopLen, vExt, aP, jerk) + linesTime(innerLen, Math.max(1, loopLen), vIn, aP, jerk);
      // Skin lines run across the region: mean chord of a convex region is pi*A/P (Cauchy).
      const regionA = aSolid + aTop + aBridge;
      const chord = outline > 0 ? Math.max(1, (Math.PI * (regionA + aSparse)) / outline) : 1;
      const aS = first ? s.accel.firstLayer : s.accel.default;
      const tSolid = linesTime(aSolid / sp, chord, capV(first ? sp1.firstLayer : sp1.solidInfill, w), aS, jerk);
      const tTop = linesTime(aTop / topSpacing, chord, capV(first ? sp1.firstLayer : sp1.topSolidInfill, s.topWidthMm), aS, jerk);
      const tBr = linesTime(aBridge / (s.nozzleMm + 0.05), chord, first ? sp1.firstLayer : sp1.bridge, first ? s.accel.firstLayer : s.accel.bridge, jerk);
      const sparseLen = volSparse / (lh * sp);
      const tSp = linesTime(sparseLen, CAL.gyroidPieceSpacings * (sp / Math.max(0.01, sparseDensity)), capV(first ? sp1.firstLayer : sp1.infill, w), first ? s.accel.firstLayer : s.accel.infill, jerk);
      // Travel: retract + lift + move + lower + unretract per island change.
      // One retracting travel to each contour's loops, one more per island to its infill.
      // Gyroid lines leave the sparse region about twice per line spacing of its outline; anchors
      // join only part of them, the rest start with a retracting travel.
      const gyroidPieces = sparseDensity > 0 ? (sparseOutline / (2 * (sp / sparseDensity))) * CAL.unanchoredFraction : 0;
      const travels = contours * CAL.travelsPerContour + islands * CAL.travelsPerIsland;
      const retract = (2 * s.retractLengthMm) / s.retractSpeedMmS + (2 * s.retractLiftMm) / s.maxFeedrateZ;
      const hop = Math.sqrt(Math.max(1, (aPerim + regionA + aSparse) / Math.max(1, islands)));
      const tTr =
        travels * (retract + moveTime(hop, sp1.travel, s.accel.travel, jerk)) +
        gyroidPieces * (retract + moveTime((2 * sp) / Math.max(0.01, sparseDensity), sp1.travel, s.accel.travel, jerk)) +
        lh / s.maxFeedrateZ;
      trace?.({ part: plan.part, layer: K, outlineMm: outline, islands, perimeterMm2: aPerim, solidMm2: aSolid, topMm2: aTop, bridgeMm2: aBridge, sparseMm2: aSparse, seconds: tp + tSolid + tTop + tBr + tSp + tTr });
      tPerim += tp;
      tSkin += tSolid + tTop + tBr;
      tInfill += tSp;
      tTravel += tTr;
      const acc = (layerAcc[K] ??= { extrudeS: 0, fixedS: 0, extrudeLen: 0 });
      acc.extrudeS += tp + tSolid + tTop + tBr + tSp;
      acc.fixedS += tTr;
      acc.extrudeLen += perimLen + aSolid / sp + aTop / topSpacing + aBridge / (s.nozzleMm + 0.05) + sparseLen;

      // Roll state upwards over this layer's and the previous layer's windows.
      const pc0 = K > 0 ? Math.min(c0, win[(K - 1) * 4]!) : c0;
      const pc1 = K > 0 ? Math.max(c1, win[(K - 1) * 4 + 1]!) : c1;
      const pr0 = K > 0 ? Math.min(r0, win[(K - 1) * 4 + 2]!) : r0;
      const pr1 = K > 0 ? Math.max(r1, win[(K - 1) * 4 + 3]!) : r1;
      for (let r = pr0; r < pr1; r++) {
        for (let i = r * nx + pc0, e = r * nx + pc1; i < e; i++) {
          if (mask[i] === 2) {
            below[i] = Math.min(255, below[i]! + 1);
            belowRaw[i] = Math.min(255, belowRaw[i]! + 1);
            prevClass[i] = cls[i]!;
          } else if (mask[i]) {
            below[i] = 0;
            belowRaw[i] = Math.min(255, belowRaw[i]! + 1);
            prevClass[i] = cls[i]!;
          } else {
            below[i] = 0;
            belowRaw[i] = 0;
            prevClass[i] = 0;
          }
        }
      }
    };

    for (let L = 0; L < layers + s.topLayers; L++) {
      if (L < layers) {
        const m = ring[L % ringSize]!;
        rast.rasterize(segs.segs, segs.offsets[L]!, segs.offsets[L + 1]!, m);
        const c0 = win[L * 4]!, c1 = win[L * 4 + 1]!, r0 = win[L * 4 + 2]!, r1 = win[L * 4 + 3]!;
        if (c1 > c0 && r1 > r0) {
          const d2 = ringD2[L % ringSize]!;
          rast.distance(m, d2, c0, c1, r0, r1);
          // 2 marks cells deeper than the perimeter band.
          for (let r = r0; r < r1; r++) for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) if (m[i] && d2[i]! > interior2) m[i] = 2;
        }
      }
      const K = L - s.topLayers;
      if (K >= 0) classify(K);
    }
  }

  // Minimum layer time: extrusions slow down (not below min speed) until the layer takes minLayerTimeS.
  let printS = 0;
  let slowdownS = 0;
  for (const acc of layerAcc) {
    if (!acc) continue;
    let t = acc.extrudeS + acc.fixedS;
    if (t < s.minLayerTimeS && acc.extrudeS > 0) {
      const slowest = acc.extrudeLen / s.minPrintSpeedMmS;
      const target = Math.min(s.minLayerTimeS - acc.fixedS, Math.max(acc.extrudeS, slowest));
      const extra = Math.max(0, target - acc.extrudeS);
      slowdownS += extra;
      t += extra;
    }
    printS += t;
  }
  const rho = densityOf(s);
  const vTotal = vPerim + vSolid + vBridge + vSparse;
  const g = (v: number) => (v / 1000) * rho;
  const grams = g(vTotal);
  const filamentArea = Math.PI * (s.filamentDiameterMm / 2) ** 2;
  return {
    grams,
    printSeconds: printS,
    filamentMm: vTotal / filamentArea,
    extrudedMm3: vTotal,
    costUsd: fulfilmentCostUsd(s.filament, grams),
    layers: layerAcc.length,
    breakdown: {
      perimeterG: g(vPerim),
      skinG: g(vSolid + vBridge),
      bridgeG: g(vBridge),
      infillG: g(vSparse),
      perimeterS: tPerim,
      skinS: tSkin,
      infillS: tInfill,
      travelS: tTravel,
      slowdownS,
    },
    settings: s,
  };
}
