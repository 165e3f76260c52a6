import type { Grid } from './grid.ts';
import type { LayerSegments } from './slice.ts';
import { isSteady, type LayerSelection } from './layer-plan.ts';
import { FIGURES } from './figures.ts';
import { leaseScratch, type ScratchLease } from '../scratch.ts';

/**
 * What a layer's cross-section becomes, PrusaSlicer's way (docs/quote-engine.md, "How the
 * estimate works", step 4): perimeter band, solid (top/bottom skins, vertical shells, small
 * islands), top surface, bridges and sparse infill, measured on one object's grid.
 */
export interface ClassifierSettings {
  /** Width of the perimeters' band (mm). */
  perimBand: number;
  /** Depth at which solid infill starts (the band less infill_overlap, mm). */
  solidFrom: number;
  topLayers: number;
  bottomLayers: number;
  /** solid_infill_below_area (mm²). */
  solidInfillBelowAreaMm2: number;
}

/** What the classification counts as its work. */
export interface ClassifierWork {
  /** Grid cells rasterised and measured, plus cells classified (window cells, each time). */
  cells: number;
  /** Layer masks made (a layer whose cross-section is the one below reuses that mask). */
  masks: number;
  /** Layers classified (a steady layer takes the figures of the layer below). */
  classified: number;
}

/**
 * Classifies the selected layers of an object with the WebAssembly kernels (assembly/layers.ts)
 * in a scratch memory laid out here: one pass over each stretch of masked layers, in order, each
 * layer's mask (inside, deeper than the solid line) and squared distances made once. A mask lives
 * in one of topLayers + 2 buffers while a layer at most topLayers below still reads it; a layer
 * whose cross-section is the one below (sameAsBelow) shares that layer's buffer, and a layer whose
 * whole neighbourhood is unchanged (isSteady) takes the figures of the layer below: a prism costs
 * one mask and a few classifications, however tall it is.
 */
export function classifyLayers(
  grid: Grid,
  cfg: ClassifierSettings,
  segs: LayerSegments,
  win: Int32Array,
  sel: LayerSelection,
  sameAsBelow: Uint8Array,
  out: Float64Array,
): ClassifierWork {
  const { nx, ny, cell } = grid;
  const n = nx * ny;
  const top = cfg.topLayers,
    bottom = cfg.bottomLayers;
  const layers = sel.mask.length;
  const slots = top + 2;
  // Crossings a layer's rows can hold: each segment crosses at most |dy|/cell + 1 row centres.
  let crossings = 1024;
  for (let L = 0; L < layers; L++) {
    if (!sel.mask[L]) continue;
    let c = 0;
    for (let k = segs.offsets[L]! * 4, e = segs.offsets[L + 1]! * 4; k < e; k += 4)
      c += Math.floor(Math.abs(segs.segs[k + 3]! - segs.segs[k + 1]!) / cell) + 2;
    if (c > crossings) crossings = c;
  }
  const span = Math.max(nx, ny) + 2;
  const layout: [string, number][] = [
    ['d2', slots * n * 2],
    ['segs', segs.segs.byteLength],
    ['label', n * 4],
    ['xs', crossings * 4],
    ['rowCount', (ny + 1) * 4],
    ['rowFill', ny * 4],
    ['edtF', span * 4],
    ['edtV', span * 4],
    ['out', FIGURES * 8],
    // Runs of cells along the rows (24 bytes each): at most one a cell, plus one a row.
    ['runs', (n + ny + 1) * 24],
    ['above', Math.max(1, top) * 4],
    ['masks', slots * n],
    ['below', n],
    ['belowRaw', n],
    ['prevClass', n],
    ['cls', n],
    ['core', n],
    ['dirs', crossings],
  ];
  const at: Record<string, number> = {};
  let bytes = 0;
  for (const [name, size] of layout) {
    at[name] = bytes;
    bytes += Math.ceil(size / 8) * 8;
  }
  const lease: ScratchLease = leaseScratch(bytes);
  try {
    const k = lease.kernels;
    const mem = lease.buffer;
    const u8 = new Uint8Array(mem);
    new Float32Array(mem, at.segs!, segs.segs.length).set(segs.segs);
    const solidFromCells = (cfg.solidFrom + cell / 2) / cell - 0.5;
    k.layerGrid(
      nx,
      ny,
      grid.x0,
      grid.y0,
      cell,
      cfg.perimBand,
      cfg.solidFrom,
      solidFromCells > 0 ? solidFromCells * solidFromCells : 0,
      top,
      bottom,
      cfg.solidInfillBelowAreaMm2,
    );
    k.layerBuffers(
      at.below!,
      at.belowRaw!,
      at.prevClass!,
      at.cls!,
      at.core!,
      at.label!,
      at.rowCount!,
      at.rowFill!,
      at.xs!,
      at.dirs!,
      crossings,
      at.edtF!,
      at.edtV!,
      at.runs!,
    );
    const maskAt = (slot: number) => at.masks! + slot * n;
    const d2At = (slot: number) => at.d2! + slot * 2 * n;
    // Masks start empty; a buffer is cleared over the window it last held before it is reused.
    u8.fill(0, at.masks!, at.masks! + slots * n);
    const slotWindow = new Int32Array(slots * 4);
    const slotOf = new Int32Array(layers).fill(-1);
    const figures = new Float64Array(mem, at.out!, FIGURES);
    const aboveList = new Uint32Array(mem, at.above!, Math.max(1, top));
    const work: ClassifierWork = { cells: 0, masks: 0, classified: 0 };
    const c0 = (L: number) => win[L * 4]!,
      c1 = (L: number) => win[L * 4 + 1]!,
      r0 = (L: number) => win[L * 4 + 2]!,
      r1 = (L: number) => win[L * 4 + 3]!;
    const maskOf = (L: number) => (L >= 0 && L < layers && slotOf[L]! >= 0 ? maskAt(slotOf[L]!) : 0);

    for (let s = 0; s < layers; s++) {
      if (!sel.mask[s] || (s > 0 && sel.mask[s - 1])) continue;
      let e = s;
      while (e + 1 < layers && sel.mask[e + 1]) e++;
      u8.fill(0, at.below!, at.below! + n);
      u8.fill(0, at.belowRaw!, at.belowRaw! + n);
      u8.fill(0, at.prevClass!, at.prevClass! + n);
      for (let L = s; L <= e + top; L++) {
        if (L <= e) {
          if (L > s && sameAsBelow[L]) slotOf[L] = slotOf[L - 1]!;
          else {
            // A buffer no layer from L - topLayers on reads.
            let slot = 0;
            for (; slot < slots; slot++) {
              let used = false;
              for (let j = Math.max(s, L - top); j < L; j++) if (slotOf[j] === slot) used = true;
              if (!used) break;
            }
            const o = slot * 4;
            k.clearWindow(
              maskAt(slot),
              slotWindow[o]!,
              slotWindow[o + 1]!,
              slotWindow[o + 2]!,
              slotWindow[o + 3]!,
            );
            slotWindow.set([c0(L), c1(L), r0(L), r1(L)], o);
            slotOf[L] = slot;
            if (k.rasterizeLayer(at.segs!, segs.offsets[L]!, segs.offsets[L + 1]!, maskAt(slot)) !== 0)
              throw new Error('layer crossings exceed their buffer');
            work.masks++;
            if (c1(L) > c0(L) && r1(L) > r0(L)) {
              work.cells += (c1(L) - c0(L)) * (r1(L) - r0(L));
              k.distanceLayer(maskAt(slot), d2At(slot), c0(L), c1(L), r0(L), r1(L));
            }
          }
        }
        const K = L - top;
        if (K < s || K > e) continue;
        // Counters roll over this layer's and the previous layer's windows.
        const rc0 = K > s ? Math.min(c0(K), c0(K - 1)) : c0(K),
          rc1 = K > s ? Math.max(c1(K), c1(K - 1)) : c1(K);
        const rr0 = K > s ? Math.min(r0(K), r0(K - 1)) : r0(K),
          rr1 = K > s ? Math.max(r1(K), r1(K - 1)) : r1(K);
        if (!sel.classify[K]) {
          k.rollLayer(maskOf(K), false, rc0, rc1, rr0, rr1);
        } else if (K > s && isSteady(K, sel, top, bottom, sameAsBelow)) {
          // Same masks from K - bottom - 1 to K + top: the figures of the layer below.
          out.copyWithin(K * FIGURES, (K - 1) * FIGURES, K * FIGURES);
        } else {
          if (c1(K) > c0(K) && r1(K) > r0(K)) {
            for (let j = 0; j < top; j++) aboveList[j] = maskOf(K + 1 + j);
            k.classifyLayer(
              maskOf(K),
              d2At(slotOf[K]!),
              at.above!,
              maskOf(K + 1),
              K === 0,
              c0(K),
              c1(K),
              r0(K),
              r1(K),
              at.out!,
            );
            work.cells += (c1(K) - c0(K)) * (r1(K) - r0(K));
            work.classified++;
          } else figures.fill(0);
          if (sel.emit[K]) out.set(figures, K * FIGURES);
          k.rollLayer(maskOf(K), true, rc0, rc1, rr0, rr1);
        }
      }
    }
    return work;
  } finally {
    lease.release();
  }
}
