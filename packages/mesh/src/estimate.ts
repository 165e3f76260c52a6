import type { ModelAnalysis } from './analysis.ts';
import { fulfilmentCostUsd } from '@layerline/contracts';
import { densityOf, resolveSettings, type PrintSettings, type PrintSettingsInput } from './settings.ts';
import { countCuts, sliceTriangles } from './slicing/slice.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import type { Grid } from './slicing/grid.ts';
import { LayerTimer, type Extrusion, type Travels } from './slicing/layer-time.ts';
import { BOX_BLOCK, layerGeometry, type LayerGeometry } from './slicing/layer-geometry.ts';
import { classifyLayers } from './slicing/layer-classifier.ts';
import {
  essentialLayers,
  fillGaps,
  planLayers,
  select,
  emptySelection,
  selectionCost,
  stepLayers,
} from './slicing/layer-plan.ts';
import { FIG, FIGURES } from './slicing/figures.ts';

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
  /**
   * Share of gyroid line ends that anchors do not join, so a retracting travel starts the next
   * line (cylinders, a tube, two cylinders: 0.05-0.07 retractions per mm of sparse outline).
   */
  unanchoredFraction: 0.06,
  /** Gyroid polylines turn continuously; each straight piece is about this many line spacings long. */
  gyroidPieceSpacings: 1.35,
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
  /**
   * The work done (bounded by MESH_LIMITS.estimateCellBudget): grid cells rasterised, measured
   * and classified, layer masks made and layers classified, over all objects; `layers` of them
   * were interpolated from classified layers around them (0 when every layer was classified).
   */
  work: { cells: number; masks: number; classified: number; interpolated: number };
  settings: PrintSettings;
}

/** Cells of the finest grid per layer; a larger footprint gets coarser cells. */
const MAX_CELLS = 200_000;
/** Horizontal surface area between two layers (mm²) below which their cross-sections are the same. */
const SAME_SECTION_MM2 = 1e-6;

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
  geo: LayerGeometry;
  sameAsBelow: Uint8Array;
}

/** Cells of an object's grid: its box at `cell`, with a two-cell margin. */
function gridOf(plan: Pick<ObjectPlan, 'minX' | 'minY' | 'maxX' | 'maxY'>, cell: number): Grid {
  const margin = 2;
  return {
    x0: plan.minX - margin * cell,
    y0: plan.minY - margin * cell,
    cell,
    nx: Math.ceil((plan.maxX - plan.minX) / cell) + 2 * margin + 1,
    ny: Math.ceil((plan.maxY - plan.minY) / cell) + 2 * margin + 1,
  };
}

/**
 * Each object's box, layers, cuts, exact layer geometry and grid cell, and the refusal of work
 * beyond the bounds (MESH_LIMITS.maxObjectLayers, maxLayerCuts) before any per-layer array
 * exists. Cells small enough to resolve the perimeter band, at most MAX_CELLS per layer.
 */
function planObjects(
  p: Float32Array,
  idx: Uint32Array,
  parts: Uint32Array | number[],
  s: PrintSettings,
): ObjectPlan[] {
  const h = s.layerHeightMm,
    h1 = s.firstLayerHeightMm,
    w = s.extrusionWidthMm;
  const plans: ObjectPlan[] = [];
  let totalLayers = 0;
  let totalCuts = 0;
  for (let part = 0; part + 1 < parts.length; part++) {
    const t0 = parts[part]!,
      t1 = parts[part + 1]!;
    let minX = Infinity,
      minY = Infinity,
      minZ = Infinity,
      maxX = -Infinity,
      maxY = -Infinity,
      maxZ = -Infinity;
    for (let t = t0 * 3; t < t1 * 3; t++) {
      const o = idx[t]! * 3;
      const x = p[o]!,
        y = p[o + 1]!,
        z = p[o + 2]!;
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
    const W = maxX - minX,
      D = maxY - minY;
    if ((W / cell) * (D / cell) > MAX_CELLS) cell = Math.sqrt((W * D) / MAX_CELLS);
    const geo = layerGeometry(p, idx, t0, t1, minZ, h1 - h / 2, h, layers);
    const sameAsBelow = new Uint8Array(layers);
    for (let k = 1; k < layers; k++) sameAsBelow[k] = geo.change[k - 1]! <= SAME_SECTION_MM2 ? 1 : 0;
    plans.push({ part, t0, t1, minX, minY, minZ, maxX, maxY, layers, cell, geo, sameAsBelow });
  }
  return plans;
}

/** A bound on each layer's window (cells) at the plan's cell: its block's box with the window's margins. */
function windowCells(plan: ObjectPlan, grid: Grid): Float64Array {
  const out = new Float64Array(plan.layers);
  const boxes = plan.geo.boxes;
  for (let k = 0; k < plan.layers; k++) {
    const o = Math.floor(k / BOX_BLOCK) * 4;
    if (!(boxes[o + 1]! >= boxes[o]!)) continue;
    const cols = Math.min(grid.nx, Math.ceil((boxes[o + 1]! - boxes[o]!) / grid.cell) + 6);
    const rows = Math.min(grid.ny, Math.ceil((boxes[o + 3]! - boxes[o + 2]!) / grid.cell) + 6);
    out[k] = cols * rows;
  }
  return out;
}

/**
 * Shares the estimate's cell budget among the objects: every object whose full work fits an
 * equal share of what is left gets it, the rest share the remainder in proportion to their
 * full work. Returns each object's budget in cells.
 */
function shareBudget(plans: ObjectPlan[], s: PrintSettings, budget: number): number[] {
  const full = plans.map((plan) => {
    const cells = windowCells(plan, gridOf(plan, plan.cell));
    const all = emptySelection(plan.layers);
    select(all, 0, plan.layers - 1, s.topLayers, s.bottomLayers, cells);
    return selectionCost(all, s.topLayers, s.bottomLayers, plan.sameAsBelow, cells);
  });
  const shares = full.map(() => 0);
  const order = plans.map((_, i) => i).sort((a, b) => full[a]! - full[b]!);
  let left = budget;
  let rest = 0;
  for (; rest < order.length; rest++) {
    const i = order[rest]!;
    if (full[i]! > left / (order.length - rest)) break;
    shares[i] = full[i]!;
    left -= full[i]!;
  }
  const over = order.slice(rest);
  const overTotal = over.reduce((a, i) => a + full[i]!, 0);
  for (const i of over) shares[i] = (left * full[i]!) / overTotal;
  return shares;
}

/**
 * The object's grid at its cell, with each layer's window bound at that cell: all of it when its
 * layers fit its budget, else coarsened until its essential layers (skins, one run in each
 * stretch between steps) do.
 */
function fitGrid(plan: ObjectPlan, s: PrintSettings, budget: number): { grid: Grid; cells: Float64Array } {
  for (;;) {
    const grid = gridOf(plan, plan.cell);
    const cells = windowCells(plan, grid);
    const all = emptySelection(plan.layers);
    select(all, 0, plan.layers - 1, s.topLayers, s.bottomLayers, cells);
    if (selectionCost(all, s.topLayers, s.bottomLayers, plan.sameAsBelow, cells) <= budget)
      return { grid, cells };
    const need = essentialLayers(plan.geo, s.topLayers, s.bottomLayers, cells).cells;
    if (need <= budget) return { grid, cells };
    plan.cell *= Math.max(1.05, Math.sqrt(need / budget));
  }
}

/** Per-layer figures (trace), for calibration tools and debugging. */
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
  /** Retracting travels. */
  travels: number;
  /** Whether the layer was classified (false: interpolated from the classified layers around it). */
  classified: boolean;
}

export function estimatePrint(
  analysis: ModelAnalysis,
  input: PrintSettingsInput = {},
  trace?: (t: LayerTrace) => void,
): PrintEstimate {
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
  const bridgeFactor = ((Math.PI / 4) * s.nozzleMm * s.nozzleMm) / ((s.nozzleMm + 0.05) * h);
  const sparseDensity = (s.infillPercent / 100) * CAL.gyroidDensity;
  const topSpacing = s.topWidthMm - h * (1 - Math.PI / 4);
  const layerWork: { extrusions: Extrusion[]; travels: Travels[]; height: number }[] = [];
  const timer = new LayerTimer(s);
  let vPerim = 0,
    vSolid = 0,
    vBridge = 0,
    vSparse = 0;
  const work = { cells: 0, masks: 0, classified: 0, interpolated: 0 };

  // Plan every object before any per-layer work: its box, layers, cuts, exact layer geometry and
  // grid. The sums are bounded (MESH_LIMITS) so no file under the upload limit can take the machine.
  const plans = planObjects(p, idx, parts, s);
  // A model that fits no printer only needs an indicative estimate: it gets a smaller budget.
  const budget = analysis.printability.fitsBuildVolume
    ? MESH_LIMITS.estimateCellBudget
    : MESH_LIMITS.estimateCellBudget / 16;
  const budgets = shareBudget(plans, s, budget);
  plans.forEach((plan, planIndex) => {
    const { grid, cells } = fitGrid(plan, s, budgets[planIndex]!);
    const { t0, t1, minZ, layers, cell, geo, sameAsBelow } = plan;
    const cellArea = cell * cell;
    const sel = planLayers(geo, s.topLayers, s.bottomLayers, sameAsBelow, cells, budgets[planIndex]!);
    // Only the masks the classifier makes are sliced: a layer whose cross-section is the one
    // below it in the same pass shares that layer's mask (and window).
    const cut = new Uint8Array(layers);
    for (let L = 0; L < layers; L++)
      cut[L] = sel.mask[L] && !(L > 0 && sel.mask[L - 1] && sameAsBelow[L]) ? 1 : 0;
    const segs = sliceTriangles(p, idx, t0, t1, minZ, h1 - h / 2, h, layers, cut);
    // Per-layer window (cells) around the cross-section, so small layers of a big object stay cheap.
    const win = new Int32Array(layers * 4);
    for (let L = 0; L < layers; L++) {
      if (sel.mask[L] && !cut[L]) {
        win.copyWithin(L * 4, (L - 1) * 4, L * 4);
        continue;
      }
      let x0 = Infinity,
        x1 = -Infinity,
        y0 = Infinity,
        y1 = -Infinity;
      for (let k = segs.offsets[L]! * 4, e = segs.offsets[L + 1]! * 4; k < e; k += 2) {
        const x = segs.segs[k]!,
          y = segs.segs[k + 1]!;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      if (x1 < x0) continue;
      win[L * 4] = Math.max(0, Math.floor((x0 - grid.x0) / cell) - 2);
      win[L * 4 + 1] = Math.min(grid.nx, Math.ceil((x1 - grid.x0) / cell) + 3);
      win[L * 4 + 2] = Math.max(0, Math.floor((y0 - grid.y0) / cell) - 2);
      win[L * 4 + 3] = Math.min(grid.ny, Math.ceil((y1 - grid.y0) / cell) + 3);
    }
    const fig = new Float64Array(layers * FIGURES);
    const done = classifyLayers(
      grid,
      {
        perimBand,
        solidFrom,
        topLayers: s.topLayers,
        bottomLayers: s.bottomLayers,
        solidInfillBelowAreaMm2: s.solidInfillBelowAreaMm2,
      },
      segs,
      win,
      sel,
      sameAsBelow,
      fig,
    );
    fillGaps(
      fig,
      sel.emit,
      stepLayers(geo, s.topLayers, s.bottomLayers),
      geo,
      cellArea,
      s.topLayers,
      s.bottomLayers,
    );
    work.cells += done.cells;
    work.masks += done.masks;
    work.classified += done.classified;
    for (let K = 0; K < layers; K++) if (!sel.emit[K]) work.interpolated++;

    // A layer with the figures, outline and area of the layer below (a prism's) prints the same.
    let previous:
      { volumes: number[]; extrusions: Extrusion[]; travels: Travels[]; trace: LayerTrace } | undefined;
    for (let K = 0; K < layers; K++) {
      const o = K * FIGURES;
      if (previous && K > 1 && geo.outline[K] === geo.outline[K - 1] && geo.area[K] === geo.area[K - 1]) {
        let same = true;
        for (let f = 0; f < FIGURES && same; f++) same = fig[o + f] === fig[o - FIGURES + f];
        if (same) {
          const work = (layerWork[K] ??= { extrusions: [], travels: [], height: h });
          work.extrusions.push(...previous.extrusions);
          work.travels.push(...previous.travels);
          vPerim += previous.volumes[0]!;
          vSolid += previous.volumes[1]!;
          vBridge += previous.volumes[2]!;
          vSparse += previous.volumes[3]!;
          trace?.({ ...previous.trace, layer: K, classified: sel.emit[K] === 1 });
          continue;
        }
      }
      const islands = fig[o + FIG.islands]!,
        holes = fig[o + FIG.holes]!;
      const lh = K === 0 ? h1 : h;
      const outline = geo.outline[K]!;
      const aPerim = fig[o + FIG.perimeter]! * cellArea;
      const aSolid = fig[o + FIG.solid]! * cellArea;
      const aTop = fig[o + FIG.top]! * cellArea;
      const aBridge = fig[o + FIG.bridge]! * cellArea;
      const aSparse = fig[o + FIG.sparse]! * cellArea;
      const sparseOutline = fig[o + FIG.sparseEdges]! * cell * (Math.PI / 4);
      const volPerim = aPerim * lh;
      const volSolid = (aSolid + aTop) * lh;
      const volBridge = aBridge * lh * bridgeFactor;
      const volSparse =
        s.infillPercent > 0
          ? (sparseDensity * aSparse + CAL.anchorFraction * sp * sparseOutline * (aSparse > 0 ? 1 : 0)) * lh
          : 0;
      vPerim += volPerim;
      vSolid += volSolid;
      vBridge += volBridge;
      vSparse += volSparse;

      // Time: what the layer extrudes, kind by kind, and its retracting travels (layer-time.ts).
      const first = K === 0;
      const sp1 = s.speeds;
      const capV = (v: number, width: number) =>
        Math.min(v, sp1.maxVolumetric / (lh * (width - lh * (1 - Math.PI / 4))));
      const contours = islands + holes;
      const loopLen = contours > 0 ? outline / contours : outline;
      const perimLen = volPerim / (lh * sp);
      const extLen = Math.min(outline, perimLen);
      const innerLen = Math.max(0, perimLen - extLen);
      const small = loopLen < 2 * Math.PI * 6.5;
      const perimAccel = timer.effectiveAccel(first ? s.accel.firstLayer : s.accel.perimeter);
      const skinAccel = timer.effectiveAccel(first ? s.accel.firstLayer : s.accel.default);
      const extrusions = (layerWork[K] ??= { extrusions: [], travels: [], height: lh }).extrusions;
      const firstExtrusion = extrusions.length,
        firstTravel = layerWork[K]!.travels.length;
      // Loops: one external per contour, the inner ones inside it, each from its seam round.
      extrusions.push({
        kind: 'perimeter',
        length: extLen,
        pieces: contours,
        speed: capV(
          first
            ? sp1.firstLayer
            : small
              ? Math.min(sp1.smallPerimeter, sp1.externalPerimeter)
              : sp1.externalPerimeter,
          w,
        ),
        accel: perimAccel,
        slows: true,
      });
      extrusions.push({
        kind: 'perimeter',
        length: innerLen,
        pieces: contours * Math.max(1, s.perimeters - 1),
        speed: capV(first ? sp1.firstLayer : small ? sp1.smallPerimeter : sp1.perimeter, w),
        accel: perimAccel,
        slows: true,
      });
      // Skins are lines across their region, each a mean chord long (pi·A/P, Cauchy; the region's
      // outline from its cell edges), each followed by a connector along the region's outline:
      // two pieces a line, from corner to corner.
      const skin = (
        area: number,
        edges: number,
        spacing: number,
        speed: number,
        accel: number,
        slows: boolean,
      ) => {
        if (!(area > 0)) return;
        const length = area / spacing;
        const outlineMm = edges * cell * (Math.PI / 4);
        const chord =
          outlineMm > 0
            ? Math.max(spacing, (Math.PI * area) / outlineMm)
            : Math.max(1, (Math.PI * area) / Math.max(1e-9, outline));
        extrusions.push({ kind: 'skin', length, pieces: (2 * length) / chord, speed, accel, slows });
      };
      skin(
        aSolid,
        fig[o + FIG.solidEdges]!,
        sp,
        capV(first ? sp1.firstLayer : sp1.solidInfill, w),
        skinAccel,
        true,
      );
      skin(
        aTop,
        fig[o + FIG.topEdges]!,
        topSpacing,
        capV(first ? sp1.firstLayer : sp1.topSolidInfill, s.topWidthMm),
        skinAccel,
        true,
      );
      skin(
        aBridge,
        fig[o + FIG.bridgeEdges]!,
        s.nozzleMm + 0.05,
        first ? sp1.firstLayer : sp1.bridge,
        timer.effectiveAccel(first ? s.accel.firstLayer : s.accel.bridge),
        false,
      );
      // Gyroid polylines turn continuously: a corner every CAL.gyroidPieceSpacings line spacings.
      const sparseLen = volSparse / (lh * sp);
      extrusions.push({
        kind: 'infill',
        length: sparseLen,
        pieces: sparseLen / (CAL.gyroidPieceSpacings * (sp / Math.max(0.01, sparseDensity))),
        speed: capV(first ? sp1.firstLayer : sp1.infill, w),
        accel: timer.effectiveAccel(first ? s.accel.firstLayer : s.accel.infill),
        slows: true,
      });
      // Retracting travels: one to each contour's loops and one more per island to its infill;
      // gyroid lines leave the sparse region about twice per line spacing of its outline, and
      // anchors join most of them, the rest start with a retracting travel.
      const travels = layerWork[K]!.travels;
      const hop = Math.sqrt(Math.max(1, (aPerim + aSolid + aTop + aBridge + aSparse) / Math.max(1, islands)));
      const retracts = contours + islands;
      travels.push({ count: retracts, distance: hop });
      if (sparseDensity > 0) {
        travels.push({
          count: (sparseOutline / (2 * (sp / sparseDensity))) * CAL.unanchoredFraction,
          distance: (2 * sp) / sparseDensity,
        });
      }
      const traced: LayerTrace = {
        part: plan.part,
        layer: K,
        outlineMm: outline,
        islands,
        perimeterMm2: aPerim,
        solidMm2: aSolid,
        topMm2: aTop,
        bridgeMm2: aBridge,
        sparseMm2: aSparse,
        travels:
          retracts +
          (sparseDensity > 0 ? (sparseOutline / (2 * (sp / sparseDensity))) * CAL.unanchoredFraction : 0),
        classified: sel.emit[K] === 1,
      };
      trace?.(traced);
      previous = {
        volumes: [volPerim, volSolid, volBridge, volSparse],
        extrusions: extrusions.slice(firstExtrusion),
        travels: travels.slice(firstTravel),
        trace: traced,
      };
    }
  });

  // Each layer's time, all objects at its height together: the minimum layer time is the layer's.
  let tPerim = 0,
    tSkin = 0,
    tInfill = 0,
    tTravel = 0,
    slowdownS = 0;
  for (const work of layerWork) {
    if (!work) continue;
    const t = timer.layer(work.extrusions, work.travels, work.height);
    tPerim += t.perimeter;
    tSkin += t.skin;
    tInfill += t.infill;
    tTravel += t.travel;
    slowdownS += t.slowdown;
  }
  const printS = tPerim + tSkin + tInfill + tTravel + slowdownS;
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
    layers: layerWork.length,
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
    work,
    settings: s,
  };
}
