/**
 * The estimate's per-layer work on one object's grid (slicing/layer-classifier.ts lays the
 * buffers out and drives it): rasterise a layer's segments into a mask, its exact distance
 * transform, classify it and roll the counters of the layers below upwards. Every pointer is a
 * byte offset into the memory the JavaScript side owns; nothing is allocated here. The grid and
 * the shared buffers are set once per object (layerGrid, layerBuffers).
 *
 * Masks hold 0 outside, 1 inside, 2 deeper than the solid line. Classes: 0 empty, 1 perimeter,
 * 2 solid, 3 sparse (4 and 5 while the vertical-shell opening runs).
 */

let nx: i32 = 0;
let ny: i32 = 0;
let gx0: f64 = 0;
let gy0: f64 = 0;
let cell: f64 = 0;
let perimBand: f64 = 0;
let solidFrom: f64 = 0;
let sf2: f64 = 0;
let topLayers: i32 = 0;
let bottomLayers: i32 = 0;
let minIslandArea: f64 = 0;

let below: usize = 0; // u8: consecutive layers directly below where the cell is interior
let belowRaw: usize = 0; // u8: ... where the cell is inside
let prevClass: usize = 0; // u8: the class of the layer below
let cls: usize = 0; // u8
let core: usize = 0; // u8
let label: usize = 0; // i32: which solid a solid cell is (SOLID, TOP, BRIDGE), for the regions' outlines
let rowCount: usize = 0; // u32, ny + 1
let rowFill: usize = 0; // u32, ny
let xs: usize = 0; // f32 crossings
let dirs: usize = 0; // i8 crossing directions
let crossingsCap: i32 = 0;
let edtF: usize = 0; // i32: a row's distances to the nearest cell nearer the outline than the cap
let edtV: usize = 0; // i32: a row's column distances
let runs: usize = 0; // i32 triples (first column, end column, parent | border bit)

export function layerGrid(cols: i32, rows: i32, x0: f64, y0: f64, size: f64, band: f64, solid: f64, solid2: f64, top: i32, bottom: i32, minArea: f64): void {
  nx = cols;
  ny = rows;
  gx0 = x0;
  gy0 = y0;
  cell = size;
  perimBand = band;
  solidFrom = solid;
  sf2 = solid2;
  topLayers = top;
  bottomLayers = bottom;
  minIslandArea = minArea;
}

export function layerBuffers(
  belowAt: usize,
  belowRawAt: usize,
  prevClassAt: usize,
  clsAt: usize,
  coreAt: usize,
  labelAt: usize,
  rowCountAt: usize,
  rowFillAt: usize,
  xsAt: usize,
  dirsAt: usize,
  cap: i32,
  fAt: usize,
  vAt: usize,
  runsAt: usize,
): void {
  below = belowAt;
  belowRaw = belowRawAt;
  prevClass = prevClassAt;
  cls = clsAt;
  core = coreAt;
  label = labelAt;
  rowCount = rowCountAt;
  rowFill = rowFillAt;
  xs = xsAt;
  dirs = dirsAt;
  crossingsCap = cap;
  edtF = fAt;
  edtV = vAt;
  runs = runsAt;
}

/** Zeroes a rectangle (columns c0..c1, rows r0..r1, exclusive ends) of a byte grid. */
export function clearWindow(mask: usize, c0: i32, c1: i32, r0: i32, r1: i32): void {
  if (c1 <= c0) return;
  for (let r = r0; r < r1; r++) memory.fill(mask + <usize>(r * nx + c0), 0, <usize>(c1 - c0));
}

@inline function firstRow(y: f64, inv: f64): i32 {
  const j = Math.ceil((y - gy0) * inv - 0.5);
  return j < 0 ? 0 : j > <f64>ny ? ny : <i32>j;
}

/**
 * Rasterises segments s0..s1 (x0, y0, x1, y1 as f32 at `segs`) into `mask` (already clear),
 * scanline at row centres with the nonzero rule, even-odd on a row an open mesh leaves
 * unbalanced. Returns 0, or the crossings it needs when they exceed the buffer (nothing written).
 */
export function rasterizeLayer(segs: usize, s0: i32, s1: i32, mask: usize): i32 {
  const inv = 1.0 / cell;
  memory.fill(rowCount, 0, <usize>(ny + 1) << 2);
  for (let s = s0; s < s1; s++) {
    const o = segs + (<usize>s << 4);
    const ya = <f64>load<f32>(o, 4), yb = <f64>load<f32>(o, 12);
    if (ya == yb) continue;
    const j0 = firstRow(ya < yb ? ya : yb, inv), j1 = firstRow(ya < yb ? yb : ya, inv);
    for (let j = j0; j < j1; j++) {
      const p = rowCount + (<usize>(j + 1) << 2);
      store<u32>(p, load<u32>(p) + 1);
    }
  }
  for (let j = 0; j < ny; j++) {
    const p = rowCount + (<usize>(j + 1) << 2);
    store<u32>(p, load<u32>(p) + load<u32>(p - 4));
  }
  const total = <i32>load<u32>(rowCount + (<usize>ny << 2));
  if (total > crossingsCap) return total;
  memory.copy(rowFill, rowCount, <usize>ny << 2);
  for (let s = s0; s < s1; s++) {
    const o = segs + (<usize>s << 4);
    const xa = <f64>load<f32>(o), ya = <f64>load<f32>(o, 4), xb = <f64>load<f32>(o, 8), yb = <f64>load<f32>(o, 12);
    if (ya == yb) continue;
    const j0 = firstRow(ya < yb ? ya : yb, inv), j1 = firstRow(ya < yb ? yb : ya, inv);
    const slope = (xb - xa) / (yb - ya);
    const dir: i8 = yb > ya ? 1 : -1;
    for (let j = j0; j < j1; j++) {
      const y = gy0 + (<f64>j + 0.5) * cell;
      const p = rowFill + (<usize>j << 2);
      const k = load<u32>(p);
      store<u32>(p, k + 1);
      store<f32>(xs + (<usize>k << 2), <f32>(xa + (y - ya) * slope));
      store<i8>(dirs + <usize>k, dir);
    }
  }
  for (let j = 0; j < ny; j++) {
    const a = <i32>load<u32>(rowCount + (<usize>j << 2)), b = <i32>load<u32>(rowCount + (<usize>(j + 1) << 2));
    if (b - a < 2) continue;
    // Insertion sort: rows rarely hold more than a few dozen crossings.
    for (let i = a + 1; i < b; i++) {
      const x = load<f32>(xs + (<usize>i << 2)), d = load<i8>(dirs + <usize>i);
      let k = i - 1;
      while (k >= a && load<f32>(xs + (<usize>k << 2)) > x) {
        store<f32>(xs + (<usize>(k + 1) << 2), load<f32>(xs + (<usize>k << 2)));
        store<i8>(dirs + <usize>(k + 1), load<i8>(dirs + <usize>k));
        k--;
      }
      store<f32>(xs + (<usize>(k + 1) << 2), x);
      store<i8>(dirs + <usize>(k + 1), d);
    }
    let w: i32 = 0;
    for (let i = a; i < b; i++) w += <i32>load<i8>(dirs + <usize>i);
    const row = mask + <usize>(j * nx);
    if (w == 0) {
      let start: f64 = 0;
      w = 0;
      for (let i = a; i < b; i++) {
        const prev = w;
        w += <i32>load<i8>(dirs + <usize>i);
        if (prev == 0 && w != 0) start = <f64>load<f32>(xs + (<usize>i << 2));
        else if (prev != 0 && w == 0) span(row, start, <f64>load<f32>(xs + (<usize>i << 2)));
      }
    } else {
      for (let i = a; i + 1 < b; i += 2) span(row, <f64>load<f32>(xs + (<usize>i << 2)), <f64>load<f32>(xs + (<usize>(i + 1) << 2)));
    }
  }
  return 0;
}

@inline function span(row: usize, xa: f64, xb: f64): void {
  let i0 = Math.ceil((xa - gx0) / cell - 0.5);
  let i1 = Math.ceil((xb - gx0) / cell - 0.5);
  if (i0 < 0) i0 = 0;
  if (i1 > <f64>nx) i1 = <f64>nx;
  if (i1 > i0) memory.fill(row + <usize>(<i32>i0), 1, <usize>(<i32>i1 - <i32>i0));
}

/**
 * Squared distance (in cells, u16) from each inside cell centre of the window to the nearest
 * outside cell centre, exact up to what any figure reads (the perimeter band and a cell more; beyond
 * it every band's coverage is whole) and that cap beyond, 0 outside; then marks cells deeper
 * than the solid line (2). The distance along each column comes from a scan down and a scan
 * up the rows, then each cell takes the nearest of its row's cells within the cap (dx² + their
 * column distance²); a cell with no cell nearer the outline than the cap within the cap along
 * its row is at the cap. Both phases read the grid in memory order, and deep cells cost O(1).
 * The window's two-cell margin is outside, so every column has outside cells.
 */
export function distanceLayer(mask: usize, d2: usize, c0: i32, c1: i32, r0: i32, r1: i32): void {
  const cap: i32 = <i32>Math.ceil(perimBand / cell + 1) + 1;
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      let g: i32 = r > r0 ? <i32>load<u16>(d2 + (<usize>(i - nx) << 1)) + 1 : cap;
      if (g > cap) g = cap;
      store<u16>(d2 + (<usize>i << 1), u8at(mask, i) != 0 ? <u16>g : 0);
    }
  }
  for (let r = r1 - 2; r >= r0; r--) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      const p = d2 + (<usize>i << 1);
      const down = load<u16>(p + (<usize>nx << 1)) + 1;
      if (down < load<u16>(p)) store<u16>(p, down);
    }
  }
  const cols = c1 - c0;
  const far = cap * cap;
  for (let j = r0; j < r1; j++) {
    const row = j * nx + c0;
    let any = false;
    // Column distances of the row, and each cell's distance to the nearest cell nearer the
    // outline than the cap on its left (edtF), then on either side.
    let shallow: i32 = -cap - 1;
    for (let i = 0; i < cols; i++) {
      const g = <i32>load<u16>(d2 + (<usize>(row + i) << 1));
      store<i32>(edtV + (<usize>i << 2), g);
      if (g > 0) any = true;
      if (g < cap) shallow = i;
      store<i32>(edtF + (<usize>i << 2), i - shallow);
    }
    if (!any) continue;
    shallow = cols + cap + 1;
    for (let i = cols - 1; i >= 0; i--) {
      const g = load<i32>(edtV + (<usize>i << 2));
      if (g < cap) shallow = i;
      let out: i32 = 0;
      if (g > 0) {
        const near = min<i32>(load<i32>(edtF + (<usize>i << 2)), shallow - i);
        if (near >= cap) out = far;
        else {
          out = g * g;
          for (let dx = 1; dx * dx < out; dx++) {
            if (i - dx >= 0) {
              const h = load<i32>(edtV + (<usize>(i - dx) << 2));
              const v = dx * dx + h * h;
              if (v < out) out = v;
            }
            if (i + dx < cols) {
              const h = load<i32>(edtV + (<usize>(i + dx) << 2));
              const v = dx * dx + h * h;
              if (v < out) out = v;
            }
          }
          if (out > far) out = far;
        }
      }
      const cellAt = row + i;
      store<u16>(d2 + (<usize>cellAt << 1), <u16>out);
      if (u8at(mask, cellAt) != 0 && <f64>out > sf2) setU8(mask, cellAt, 2);
    }
  }
}

@inline function u8at(base: usize, i: i32): u8 {
  return load<u8>(base + <usize>i);
}

@inline function setU8(base: usize, i: i32, v: u8): void {
  store<u8>(base + <usize>i, v);
}

@inline function i32at(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

@inline function setI32(base: usize, i: i32, v: i32): void {
  store<i32>(base + (<usize>i << 2), v);
}

/** Mask pointer `k` of the topLayers masks above (0: no layer there). */
@inline function aboveMask(above: usize, k: i32): usize {
  return <usize>load<u32>(above + (<usize>k << 2));
}

/**
 * Classifies a layer (window c0..c1, r0..r1) and writes its figures as 12 f64 at `out`: the
 * perimeter band, solid, top, bridge and sparse areas in cells (fractional), the sparse region's
 * outline in cell edges, islands, holes, the cells inside, and the outlines of the solid, top and
 * bridge regions in cell edges. `above` lists the masks of the topLayers layers
 * above (0 past the top), `next` is the first of them; `first` is the first layer (no bridges).
 */
export function classifyLayer(mask: usize, dist2: usize, above: usize, next: usize, first: bool, c0: i32, c1: i32, r0: i32, r1: i32, out: usize): void {
  let perimCells: f64 = 0, solidCells: f64 = 0, topCells: f64 = 0, bridgeCells: f64 = 0, sparseCells: f64 = 0;
  let sparseEdges: i32 = 0;
  let islands: i32 = 0;
  let holes: i32 = 0;
  let inside: i32 = 0;
  let shells: i32 = 0, solids: i32 = 0, sparse: i32 = 0;
  const cellArea = cell * cell;
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      if (u8at(mask, i) == 0) {
        setU8(cls, i, 0);
        continue;
      }
      inside++;
      const d2 = <f64>load<u16>(dist2 + (<usize>i << 1));
      let c: u8 = 1;
      if (d2 > sf2) {
        c = 3;
        // Solid unless the cell is interior (beyond the perimeter band) in every layer of the
        // top/bottom window: top and bottom skins, and the vertical shells behind sloped walls.
        let tb = <i32>u8at(belowRaw, i) < bottomLayers;
        if (!tb) {
          for (let k = 0; k < topLayers; k++) {
            const m = aboveMask(above, k);
            if (m == 0 || u8at(m, i) == 0) {
              tb = true;
              break;
            }
          }
        }
        if (tb) c = 2;
        else {
          let shell = <i32>u8at(below, i) < bottomLayers;
          if (!shell) {
            for (let k = 0; k < topLayers; k++) {
              if (u8at(aboveMask(above, k), i) != 2) {
                shell = true;
                break;
              }
            }
          }
          if (shell) c = 4;
        }
      }
      if (c == 4) shells++;
      else if (c == 3) sparse++;
      else if (c == 2) solids++;
      setU8(cls, i, c);
    }
  }
  // The vertical-shell region opened by one cell, so the thin rings of gentle slopes vanish.
  if (shells > 0) solids += openShells(c0, c1, r0, r1);
  // solid_infill_below_area: small sparse islands are filled solid.
  if (sparse > 0 || shells > 0) solids += fillSmallIslands(c0, c1, r0, r1);
  if (solids > 0) {
    // Bridges: solid over air or sparse infill, ignoring strips too thin to bridge.
    for (let r = r0 + 1; r < r1 - 1; r++) {
      for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
        setU8(core, i, bridgeCandidate(i) && bridgeCandidate(i - 1) && bridgeCandidate(i + 1) && bridgeCandidate(i - nx) && bridgeCandidate(i + nx) ? 1 : 0);
      }
    }
  }
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      const c = u8at(cls, i);
      if (c == 0) continue;
      // Fractional coverage of the cell by each band, so a 0.2 mm grid resolves a 0.8 mm band.
      const db = Math.sqrt(<f64>load<u16>(dist2 + (<usize>i << 1))) * cell - cell / 2;
      const fp = (perimBand - db) / cell + 0.5;
      perimCells += fp >= 1 ? 1 : fp > 0 ? fp : 0;
      if (c == 2) {
        const fiRaw = (db - solidFrom) / cell + 0.5;
        const fi = fiRaw >= 1 ? 1 : fiRaw > 0 ? fiRaw : 0;
        const bridge =
          !first &&
          bridgeCandidate(i) &&
          (u8at(core, i) | u8at(core, i - 1) | u8at(core, i + 1) | u8at(core, i - nx) | u8at(core, i + nx)) == 1;
        // Which solid it is, kept in the labels for the regions' outlines below.
        if (bridge) {
          bridgeCells += fi;
          setI32(label, i, BRIDGE);
        } else if (next == 0 || u8at(next, i) == 0) {
          topCells += fi;
          setI32(label, i, TOP);
        } else {
          solidCells += fi;
          setI32(label, i, SOLID);
        }
      } else if (c == 3) {
        const fsRaw = (db - perimBand) / cell + 0.5;
        sparseCells += fsRaw >= 1 ? 1 : fsRaw > 0 ? fsRaw : 0;
        if (u8at(cls, i + 1) != 3) sparseEdges++;
        if (u8at(cls, i - 1) != 3) sparseEdges++;
        if (u8at(cls, i + nx) != 3) sparseEdges++;
        if (u8at(cls, i - nx) != 3) sparseEdges++;
      }
    }
  }
  // Outlines of the solid, top and bridge regions (cell edges to another kind), for their lines' lengths.
  let solidEdges: i32 = 0, topEdges: i32 = 0, bridgeEdges: i32 = 0;
  for (let r = solids > 0 ? r0 : r1; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      if (u8at(cls, i) != 2) continue;
      const kind = i32at(label, i);
      let edges: i32 = 0;
      if (u8at(cls, i - 1) != 2 || i32at(label, i - 1) != kind) edges++;
      if (u8at(cls, i + 1) != 2 || i32at(label, i + 1) != kind) edges++;
      if (u8at(cls, i - nx) != 2 || i32at(label, i - nx) != kind) edges++;
      if (u8at(cls, i + nx) != 2 || i32at(label, i + nx) != kind) edges++;
      if (kind == BRIDGE) bridgeEdges += edges;
      else if (kind == TOP) topEdges += edges;
      else solidEdges += edges;
    }
  }
  // Islands (inside components) for travel and loop lengths, and holes: background components
  // that do not touch the window's border.
  islands = components(mask, INSIDE, c0, c1, r0, r1);
  holes = components(mask, BACKGROUND, c0, c1, r0, r1);

  store<f64>(out, perimCells);
  store<f64>(out, solidCells, 8);
  store<f64>(out, topCells, 16);
  store<f64>(out, bridgeCells, 24);
  store<f64>(out, sparseCells, 32);
  store<f64>(out, <f64>sparseEdges, 40);
  store<f64>(out, <f64>islands, 48);
  store<f64>(out, <f64>holes, 56);
  store<f64>(out, <f64>inside, 64);
  store<f64>(out, <f64>solidEdges, 72);
  store<f64>(out, <f64>topEdges, 80);
  store<f64>(out, <f64>bridgeEdges, 88);
}

/**
 * Opens the vertical-shell region (class 4) by one cell: what survives is solid (2), the rest
 * sparse (3). Returns the cells that became solid.
 */
function openShells(c0: i32, c1: i32, r0: i32, r1: i32): i32 {
  for (let r = r0 + 1; r < r1 - 1; r++) {
    for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
      if (u8at(cls, i) != 4) {
        setU8(core, i, 0);
        continue;
      }
      const w = u8at(cls, i - 1), ea = u8at(cls, i + 1), s = u8at(cls, i - nx), n = u8at(cls, i + nx);
      setU8(core, i, w % 2 == 0 && ea % 2 == 0 && s % 2 == 0 && n % 2 == 0 && w != 0 && ea != 0 && s != 0 && n != 0 ? 1 : 0);
    }
  }
  // The core is complete, so the classes can change in the same pass that reads it.
  let solid: i32 = 0;
  for (let r = r0 + 1; r < r1 - 1; r++) {
    for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
      if (u8at(cls, i) != 4) continue;
      const kept = u8at(core, i) | u8at(core, i - 1) | u8at(core, i + 1) | u8at(core, i - nx) | u8at(core, i + nx);
      setU8(cls, i, kept ? 2 : 3);
      if (kept) solid++;
    }
  }
  return solid;
}

/**
 * solid_infill_below_area: sparse islands whose fill surface (PrusaSlicer measures it with the
 * infill overlap) is at most minIslandArea become solid. An island's cells and outline (cell
 * edges to anything not sparse) come from its runs (see `runsOf`). Returns the cells filled.
 */
function fillSmallIslands(c0: i32, c1: i32, r0: i32, r1: i32): i32 {
  const count = runsOf(cls, SPARSE_CELLS, c0, c1, r0, r1);
  for (let q = 0; q < count; q++) {
    const root = runRoot(q);
    if (root == q) continue;
    store<i32>(runAt(root), load<i32>(runAt(root), 12) + load<i32>(runAt(q), 12), 12);
    store<i32>(runAt(root), load<i32>(runAt(root), 16) + load<i32>(runAt(q), 16), 16);
  }
  let filled: i32 = 0;
  for (let q = 0; q < count; q++) {
    const root = runAt(runRoot(q));
    const islandArea = <f64>load<i32>(root, 12) * cell * cell + <f64>load<i32>(root, 16) * cell * (Math.PI / 4) * (perimBand - solidFrom);
    if (islandArea > minIslandArea) continue;
    const run = runAt(q);
    const start = load<i32>(run);
    memory.fill(cls + <usize>(load<i32>(run, 20) * nx + start), 2, <usize>(load<i32>(run, 4) - start));
    filled += load<i32>(run, 4) - start;
  }
  return filled;
}

const SOLID: i32 = -1;
const TOP: i32 = -2;
const BRIDGE: i32 = -3;

@inline function bridgeCandidate(i: i32): bool {
  const p = u8at(prevClass, i);
  return u8at(cls, i) == 2 && (p == 0 || p == 3);
}

/**
 * Rolls the counters upwards over a layer (window c0..c1, r0..r1: this layer's and the previous
 * one's); with `withClasses` the layer's classes become the previous classes, else 0.
 */
export function rollLayer(mask: usize, withClasses: bool, c0: i32, c1: i32, r0: i32, r1: i32): void {
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      const m = u8at(mask, i);
      if (m == 0) {
        setU8(below, i, 0);
        setU8(belowRaw, i, 0);
        setU8(prevClass, i, 0);
        continue;
      }
      const b = u8at(belowRaw, i);
      setU8(belowRaw, i, b < 255 ? b + 1 : 255);
      if (m == 2) {
        const bi = u8at(below, i);
        setU8(below, i, bi < 255 ? bi + 1 : 255);
      } else setU8(below, i, 0);
      setU8(prevClass, i, withClasses ? u8at(cls, i) : 0);
    }
  }
}

/**
 * Runs of cells along the rows, in `runs`, 24 bytes each: first column, end column, parent (with
 * BORDER set for a background run touching the window's border), cells, outline edges, row.
 */
const RUN_BYTES: usize = 24;
const BORDER: i32 = 1 << 30;
/** What `runsOf` collects: cells inside, background cells, sparse cells (class 3). */
const INSIDE: i32 = 0;
const BACKGROUND: i32 = 1;
const SPARSE_CELLS: i32 = 3;

@inline function runAt(r: i32): usize {
  return runs + <usize>r * RUN_BYTES;
}

@inline function runParent(r: i32): i32 {
  return load<i32>(runAt(r), 8) & ~BORDER;
}

function runRoot(r: i32): i32 {
  let root = r;
  while (runParent(root) != root) root = runParent(root);
  // Path compression, keeping each run's border bit.
  while (runParent(r) != root) {
    const next = runParent(r);
    const p = runAt(r) + 8;
    store<i32>(p, (load<i32>(p) & BORDER) | root);
    r = next;
  }
  return root;
}

function runUnion(a: i32, b: i32): void {
  const ra = runRoot(a), rb = runRoot(b);
  if (ra == rb) return;
  const pa = runAt(ra) + 8, pb = runAt(rb) + 8;
  store<i32>(pb, (load<i32>(pb) & BORDER) | ra);
  store<i32>(pa, load<i32>(pa) | (load<i32>(pb) & BORDER));
}

@inline function counted(what: i32, buf: usize, i: i32): bool {
  const v = u8at(buf, i);
  return what == INSIDE ? v != 0 : what == BACKGROUND ? v == 0 : <i32>v == what;
}

/**
 * Collects the 4-connected regions of the window's cells that are inside, background or of a
 * class (`what`, read from `buf`) as runs along the rows, each joined by union-find with the
 * runs of the row above it overlaps: the cells are read once, the rest is per run. A run counts
 * its cells and its outline's edges (its two ends, its cells' edges up and down less the
 * overlaps). Returns the number of runs.
 */
function runsOf(buf: usize, what: i32, c0: i32, c1: i32, r0: i32, r1: i32): i32 {
  let count: i32 = 0;
  let prevFrom: i32 = 0, prevTo: i32 = 0;
  for (let r = r0; r < r1; r++) {
    const from = count;
    const row = r * nx;
    let c = c0;
    while (c < c1) {
      while (c < c1 && !counted(what, buf, row + c)) c++;
      if (c >= c1) break;
      const start = c;
      while (c < c1 && counted(what, buf, row + c)) c++;
      const border = what == BACKGROUND && (r == r0 || r == r1 - 1 || start == c0 || c == c1);
      const o = runAt(count);
      store<i32>(o, start);
      store<i32>(o, c, 4);
      store<i32>(o, count | (border ? BORDER : 0), 8);
      store<i32>(o, c - start, 12);
      store<i32>(o, 2 + 2 * (c - start), 16);
      store<i32>(o, r, 20);
      count++;
    }
    // Join with the runs of the row above that share a column; their shared edges are not outline.
    let p = prevFrom;
    for (let q = from; q < count; q++) {
      const qs = load<i32>(runAt(q)), qe = load<i32>(runAt(q), 4);
      while (p < prevTo && load<i32>(runAt(p), 4) <= qs) p++;
      for (let t = p; t < prevTo && load<i32>(runAt(t)) < qe; t++) {
        const ts = load<i32>(runAt(t)), te = load<i32>(runAt(t), 4);
        const shared = (qe < te ? qe : te) - (qs > ts ? qs : ts);
        store<i32>(runAt(q), load<i32>(runAt(q), 16) - 2 * shared, 16);
        runUnion(t, q);
      }
    }
    prevFrom = from;
    prevTo = count;
  }
  return count;
}

/** Counts the 4-connected regions of inside cells, or of background cells not touching the window's border (holes). */
function components(mask: usize, what: i32, c0: i32, c1: i32, r0: i32, r1: i32): i32 {
  const count = runsOf(mask, what, c0, c1, r0, r1);
  let result: i32 = 0;
  for (let q = 0; q < count; q++) {
    if (runParent(q) != q) continue;
    if ((load<i32>(runAt(q), 8) & BORDER) == 0) result++;
  }
  return result;
}
