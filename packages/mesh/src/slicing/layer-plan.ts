import { FIG, FIGURES } from './figures.ts';
import type { LayerGeometry } from './layer-geometry.ts';

/**
 * Which layers of an object the classifier works on. A layer's figures (`emit`) need its
 * classification, the classification of the layer below it (for bridges, `classify`), and the
 * masks of the bottomLayers + 1 layers below and topLayers above (`mask`). The classifier
 * makes one pass over each stretch of masked layers.
 */
export interface LayerSelection {
  emit: Uint8Array;
  classify: Uint8Array;
  mask: Uint8Array;
}

export function emptySelection(layers: number): LayerSelection {
  return { emit: new Uint8Array(layers), classify: new Uint8Array(layers), mask: new Uint8Array(layers) };
}

/**
 * Marks layers from..to for their figures (with `dryRun`, only counts); returns the cells the
 * new masks and classifications add (cellsOf: a bound on each layer's window, in cells).
 */
export function select(
  sel: LayerSelection,
  from: number,
  to: number,
  top: number,
  bottom: number,
  cellsOf: Float64Array,
  dryRun = false,
): number {
  const layers = sel.emit.length;
  let added = 0;
  const mark = (arr: Uint8Array, a: number, b: number, counts: boolean) => {
    for (let k = Math.max(0, a); k <= Math.min(layers - 1, b); k++) {
      if (arr[k]) continue;
      if (counts) added += cellsOf[k]!;
      if (!dryRun) arr[k] = 1;
    }
  };
  mark(sel.emit, from, to, false);
  mark(sel.classify, from - 1, to, true);
  mark(sel.mask, from - 1 - bottom, to + top, true);
  return added;
}

/**
 * The cells a selection works on, less what the classifier skips: a mask whose cross-section
 * is the one below it (sameAsBelow) in the same pass is a copy, and a layer whose whole
 * neighbourhood is unchanged since the layer below was emitted takes that layer's figures.
 */
export function selectionCost(
  sel: LayerSelection,
  top: number,
  bottom: number,
  sameAsBelow: Uint8Array,
  cellsOf: Float64Array,
): number {
  const layers = sel.emit.length;
  let cells = 0;
  for (let k = 0; k < layers; k++) {
    if (sel.mask[k] && !(k > 0 && sel.mask[k - 1] && sameAsBelow[k])) cells += cellsOf[k]!;
    if (sel.classify[k] && !isSteady(k, sel, top, bottom, sameAsBelow)) cells += cellsOf[k]!;
  }
  return cells;
}

/** Whether layer K's masks from K - bottom - 1 to K + top are all one cross-section and K - 1 is emitted. */
export function isSteady(
  K: number,
  sel: LayerSelection,
  top: number,
  bottom: number,
  sameAsBelow: Uint8Array,
): boolean {
  if (!sel.emit[K] || !(K > 0 && sel.emit[K - 1]) || K - bottom < 1 || K + top >= sel.emit.length)
    return false;
  for (let j = K - bottom; j <= K + top; j++) if (!sameAsBelow[j]) return false;
  return true;
}

/** A change between two layers larger than this share of their area is a step (a shelf, a roof, a floor). */
const STEP_SHARE = 0.1;
/** Runs of layers spread over the height once the largest changes are classified. */
const ANCHORS = 6;
/** Layers in a run: its classification needs the bottomLayers + 1 masks below and topLayers above, so longer runs cost less a layer. */
const RUN = 4;

/**
 * Where an object's steps are (the change between layers s and s + 1 is more than STEP_SHARE of
 * their area): the layers whose classification sees one (its top/bottom windows reach layers
 * s - topLayers + 1 to s + bottomLayers, its bridges one above) and the bottom and top skins
 * (`near`); and the stretch of layers between two steps each layer lies in (`stretch`).
 */
export function stepLayers(
  geo: LayerGeometry,
  top: number,
  bottom: number,
): { near: Uint8Array; stretch: Int32Array } {
  const layers = geo.area.length;
  const near = new Uint8Array(layers);
  const stretch = new Int32Array(layers);
  for (let s = 0; s + 1 < layers; s++) {
    const step = geo.change[s]! > STEP_SHARE * Math.max(geo.area[s]!, geo.area[s + 1]!, 1e-9);
    stretch[s + 1] = stretch[s]! + (step ? 1 : 0);
    if (!step) continue;
    for (let k = Math.max(0, s - top + 1); k <= Math.min(layers - 1, s + bottom + 1); k++) near[k] = 1;
  }
  for (let k = 0; k <= Math.min(layers - 1, bottom); k++) near[k] = 1;
  for (let k = Math.max(0, layers - 1 - top); k < layers; k++) near[k] = 1;
  return { near, stretch };
}

/**
 * What every selection holds, whatever it costs: the bottom and top skins and a run of layers
 * away from the steps in every stretch between two steps, so that no layer is interpolated from
 * layers of another stretch or from skins only. (The estimate coarsens an object's cells until
 * this fits its budget.)
 */
export function essentialLayers(
  geo: LayerGeometry,
  top: number,
  bottom: number,
  cellsOf: Float64Array,
): { sel: LayerSelection; cells: number } {
  const layers = geo.area.length;
  const sel = emptySelection(layers);
  let cells = select(sel, 0, bottom, top, bottom, cellsOf);
  cells += select(sel, layers - 1 - top, layers - 1, top, bottom, cellsOf);
  const { near, stretch } = stepLayers(geo, top, bottom);
  for (let k = 0; k < layers; k++) {
    if (near[k] || (k > 0 && !near[k - 1] && stretch[k] === stretch[k - 1])) continue;
    let to = k;
    while (to + 1 < layers && !near[to + 1] && stretch[to + 1] === stretch[k]) to++;
    const mid = (k + to) >> 1;
    cells += select(sel, mid, Math.min(to, mid + RUN - 1), top, bottom, cellsOf);
  }
  return { sel, cells };
}

/**
 * A selection whose cells fit `budget` (beyond its essential layers): every layer when it fits;
 * otherwise the essential layers, then, while the budget lasts, the layers around the largest
 * changes, runs of layers spread over the height, then runs ever denser (every 64th layer, every
 * 32nd, ...), so the rest lie between classified layers.
 */
export function planLayers(
  geo: LayerGeometry,
  top: number,
  bottom: number,
  sameAsBelow: Uint8Array,
  cellsOf: Float64Array,
  budget: number,
): LayerSelection {
  const layers = geo.area.length;
  const all = emptySelection(layers);
  select(all, 0, layers - 1, top, bottom, cellsOf);
  if (selectionCost(all, top, bottom, sameAsBelow, cellsOf) <= budget) return all;
  const essential = essentialLayers(geo, top, bottom, cellsOf);
  const sel = essential.sel;
  let used = essential.cells;
  // Each addition is checked by its plain cost (copies and steady layers counted in full), so
  // the selection's work never exceeds the budget.
  const tryAdd = (from: number, to: number): boolean => {
    const added = select(sel, from, to, top, bottom, cellsOf, true);
    if (used + added > budget) return false;
    used += select(sel, from, to, top, bottom, cellsOf);
    return true;
  };
  // The layers around the largest changes, where skins and shells are: a change of a few
  // percent of a large area is as much solid as a step of a small one.
  const changes: number[] = [];
  for (let s = 0; s + 1 < layers; s++)
    if (geo.change[s]! > 0.01 * Math.max(geo.area[s]!, geo.area[s + 1]!)) changes.push(s);
  changes.sort((a, b) => geo.change[b]! - geo.change[a]!);
  for (const s of changes) tryAdd(s - top + 1, s + bottom + 1);
  for (let i = 0; i < ANCHORS; i++)
    tryAdd(Math.floor(((i + 0.5) * layers) / ANCHORS), Math.floor(((i + 0.5) * layers) / ANCHORS) + RUN - 1);
  for (let stride = 64; stride >= RUN; stride >>= 1) {
    for (let k = stride >> 1; k < layers; k += stride) if (!sel.emit[k]) tryAdd(k, k + RUN - 1);
  }
  return sel;
}

/**
 * Figures of the layers not emitted, interpolated linearly between the nearest emitted layers
 * below and above, and scaled by the layer's own exact outline (perimeter band, sparse outline),
 * area (sparse) or the change its top/bottom window sees (solid, top, bridges: what skins and
 * shells grow with) over the interpolated one, within 1/2..2 (0..4 for the change). The scaling needs the
 * outline to bound the area the rasteriser fills: where the emitted layers' inside cells miss
 * their exact areas by more than 10 % (an open mesh), figures are only interpolated.
 * Interpolation does not cross a step, and a layer away from steps takes layers away from steps
 * where its stretch has them, so a roof or a floor is not spread over the layers between; islands
 * and holes come from the nearer layer.
 */
export function fillGaps(
  fig: Float64Array,
  emitted: Uint8Array,
  steps: { near: Uint8Array; stretch: Int32Array },
  geo: LayerGeometry,
  cellArea: number,
  top: number,
  bottom: number,
): void {
  const layers = emitted.length;
  const { near, stretch } = steps;
  // The change its top/bottom window sees: what skins and shells grow with.
  const sweep = new Float64Array(layers);
  for (let k = 0; k < layers; k++)
    for (let s = Math.max(0, k - bottom - 1); s <= Math.min(layers - 2, k + top - 1); s++)
      sweep[k] = sweep[k]! + geo.change[s]!;
  let miss = 0,
    total = 0;
  for (let k = 0; k < layers; k++) {
    if (!emitted[k]) continue;
    miss += Math.abs(fig[k * FIGURES + FIG.inside]! * cellArea - geo.area[k]!);
    total += geo.area[k]!;
  }
  const scaled = miss <= 0.1 * total;
  // Nearest emitted layer below and above each layer: in its stretch and away from steps, in its stretch, anywhere.
  const pools = [(k: number) => emitted[k] === 1 && !near[k], (k: number) => emitted[k] === 1];
  const find = (inPool: (k: number) => boolean, sameStretch: boolean) => {
    const below = new Int32Array(layers).fill(-1),
      above = new Int32Array(layers).fill(-1);
    let last = -1;
    for (let k = 0; k < layers; k++) {
      if (sameStretch && k > 0 && stretch[k] !== stretch[k - 1]) last = -1;
      below[k] = last;
      if (inPool(k)) last = k;
    }
    last = -1;
    for (let k = layers - 1; k >= 0; k--) {
      if (sameStretch && k < layers - 1 && stretch[k] !== stretch[k + 1]) last = -1;
      above[k] = last;
      if (inPool(k)) last = k;
    }
    return { below, above };
  };
  const choices = [find(pools[0]!, true), find(pools[1]!, true), find(pools[1]!, false)];
  const clamp = (x: number) => (scaled ? Math.min(2, Math.max(0.5, x)) : 1);
  for (let k = 0; k < layers; k++) {
    if (emitted[k]) continue;
    const pool = choices.find((c, i) => (i > 0 || !near[k]) && (c.below[k]! >= 0 || c.above[k]! >= 0));
    if (!pool) continue;
    const lo = pool.below[k]!,
      hi = pool.above[k]!;
    const w = lo < 0 ? 1 : hi < 0 ? 0 : (k - lo) / (hi - lo);
    const lerp = (a: Float64Array | null, f: number) => {
      const at = (j: number) => (j < 0 ? 0 : a ? a[j]! : fig[j * FIGURES + f]!);
      return (1 - w) * at(lo) + w * at(hi);
    };
    const byOutline = clamp(geo.outline[k]! / Math.max(1e-9, lerp(geo.outline, 0)));
    const byArea = clamp(geo.area[k]! / Math.max(1e-9, lerp(geo.area, 0)));
    const around = lerp(sweep, 0);
    const bySweep = scaled && around > 1e-6 ? Math.min(4, sweep[k]! / around) : byArea;
    const o = k * FIGURES;
    const perimeter = lerp(null, FIG.perimeter) * byOutline;
    fig[o + FIG.perimeter] = scaled ? Math.min(geo.area[k]! / cellArea, perimeter) : perimeter;
    fig[o + FIG.sparseEdges] = lerp(null, FIG.sparseEdges) * byOutline;
    for (const f of [FIG.solid, FIG.top, FIG.bridge, FIG.solidEdges, FIG.topEdges, FIG.bridgeEdges])
      fig[o + f] = lerp(null, f) * bySweep;
    for (const f of [FIG.sparse, FIG.inside]) fig[o + f] = lerp(null, f) * byArea;
    const nearer = lo < 0 ? hi : hi < 0 ? lo : w <= 0.5 ? lo : hi;
    for (const f of [FIG.islands, FIG.holes]) fig[o + f] = fig[nearer * FIGURES + f]!;
  }
}
