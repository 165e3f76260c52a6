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
let label: usize = 0; // i32: the classification that last visited the cell (see `visit`)
let visit: i32 = 0;
let stack: usize = 0; // i32
let rowCount: usize = 0; // u32, ny + 1
let rowFill: usize = 0; // u32, ny
let xs: usize = 0; // f32 crossings
let dirs: usize = 0; // i8 crossing directions
let crossingsCap: i32 = 0;
let edtF: usize = 0; // f64
let edtV: usize = 0; // i32
let edtZ: usize = 0; // f64, one more
let edtOut: usize = 0; // f64
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

/** Sets the buffers (after layerGrid: the labels are cleared over its grid). */
export function layerBuffers(
  belowAt: usize,
  belowRawAt: usize,
  prevClassAt: usize,
  clsAt: usize,
  coreAt: usize,
  labelAt: usize,
  stackAt: usize,
  rowCountAt: usize,
  rowFillAt: usize,
  xsAt: usize,
  dirsAt: usize,
  cap: i32,
  fAt: usize,
  vAt: usize,
  zAt: usize,
  outAt: usize,
  runsAt: usize,
): void {
  below = belowAt;
  belowRaw = belowRawAt;
  prevClass = prevClassAt;
  cls = clsAt;
  core = coreAt;
  label = labelAt;
  stack = stackAt;
  rowCount = rowCountAt;
  rowFill = rowFillAt;
  xs = xsAt;
  dirs = dirsAt;
  crossingsCap = cap;
  edtF = fAt;
  edtV = vAt;
  edtZ = zAt;
  edtOut = outAt;
  runs = runsAt;
  memory.fill(label, 0, <usize>(nx * ny) << 2);
  visit = 0;
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
 * Squared distance (in cells) from each inside cell centre of the window to the nearest outside
 * cell centre, exact, 0 outside (Meijster et al.: the distance along each column by a scan down
 * and a scan up the rows, then Felzenszwalb-Huttenlocher's lower envelope along each row, so
 * both phases read the grid in memory order); then marks cells deeper than the solid line (2).
 * The window's two-cell margin is outside, so every column has outside cells.
 */
export function distanceLayer(mask: usize, d2: usize, c0: i32, c1: i32, r0: i32, r1: i32): void {
  const FAR: f32 = 1e9;
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      const up: f32 = r > r0 ? load<f32>(d2 + (<usize>(i - nx) << 2)) + 1 : FAR;
      store<f32>(d2 + (<usize>i << 2), u8at(mask, i) != 0 ? up : 0);
    }
  }
  for (let r = r1 - 2; r >= r0; r--) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      const p = d2 + (<usize>i << 2);
      const down = load<f32>(p + (<usize>nx << 2)) + 1;
      if (down < load<f32>(p)) store<f32>(p, down);
    }
  }
  const cols = c1 - c0;
  for (let j = r0; j < r1; j++) {
    const row = j * nx + c0;
    let any = false;
    for (let i = 0; i < cols; i++) {
      const g = <f64>load<f32>(d2 + (<usize>(row + i) << 2));
      store<f64>(edtF + (<usize>i << 3), g * g);
      if (g > 0) any = true;
    }
    if (!any) continue;
    edt1d(cols);
    for (let i = 0; i < cols; i++) store<f32>(d2 + (<usize>(row + i) << 2), <f32>load<f64>(edtOut + (<usize>i << 3)));
  }
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      const m = mask + <usize>i;
      if (load<u8>(m) != 0 && <f64>load<f32>(d2 + (<usize>i << 2)) > sf2) store<u8>(m, 2);
    }
  }
}

function edt1d(n: i32): void {
  let k: i32 = 0;
  store<i32>(edtV, 0);
  store<f64>(edtZ, -Infinity);
  store<f64>(edtZ, Infinity, 8);
  for (let q = 1; q < n; q++) {
    const fq = load<f64>(edtF + (<usize>q << 3)) + <f64>q * <f64>q;
    let vk = load<i32>(edtV + (<usize>k << 2));
    let s = (fq - (load<f64>(edtF + (<usize>vk << 3)) + <f64>vk * <f64>vk)) / (2.0 * <f64>(q - vk));
    while (s <= load<f64>(edtZ + (<usize>k << 3))) {
      k--;
      vk = load<i32>(edtV + (<usize>k << 2));
      s = (fq - (load<f64>(edtF + (<usize>vk << 3)) + <f64>vk * <f64>vk)) / (2.0 * <f64>(q - vk));
    }
    k++;
    store<i32>(edtV + (<usize>k << 2), q);
    store<f64>(edtZ + (<usize>k << 3), s);
    store<f64>(edtZ + (<usize>(k + 1) << 3), Infinity);
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (load<f64>(edtZ + (<usize>(k + 1) << 3)) < <f64>q) k++;
    const vk = load<i32>(edtV + (<usize>k << 2));
    store<f64>(edtOut + (<usize>q << 3), <f64>(q - vk) * <f64>(q - vk) + load<f64>(edtF + (<usize>vk << 3)));
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
  const cellArea = cell * cell;
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      if (u8at(mask, i) == 0) {
        setU8(cls, i, 0);
        continue;
      }
      inside++;
      const d2 = <f64>load<f32>(dist2 + (<usize>i << 2));
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
      setU8(cls, i, c);
    }
  }
  // The vertical-shell region opened by one cell, so the thin rings of gentle slopes vanish.
  for (let r = r0 + 1; r < r1 - 1; r++) {
    for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
      const w = u8at(cls, i - 1), ea = u8at(cls, i + 1), s = u8at(cls, i - nx), n = u8at(cls, i + nx);
      setU8(core, i, u8at(cls, i) == 4 && w % 2 == 0 && ea % 2 == 0 && s % 2 == 0 && n % 2 == 0 && w != 0 && ea != 0 && s != 0 && n != 0 ? 1 : 0);
    }
  }
  for (let r = r0 + 1; r < r1 - 1; r++) {
    for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
      if (u8at(cls, i) != 4) continue;
      setU8(cls, i, u8at(core, i) | u8at(core, i - 1) | u8at(core, i + 1) | u8at(core, i - nx) | u8at(core, i + nx) ? 5 : 3);
    }
  }
  for (let r = r0; r < r1; r++) for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) if (u8at(cls, i) >= 4) setU8(cls, i, 2);
  // solid_infill_below_area: small sparse islands are filled solid. A cell is visited when its
  // label is this classification's number, so labels are never cleared.
  if (++visit <= 0) {
    memory.fill(label, 0, <usize>(nx * ny) << 2);
    visit = 1;
  }
  for (let r = r0; r < r1; r++) {
    for (let i0 = r * nx + c0, e = r * nx + c1; i0 < e; i0++) {
      if (u8at(cls, i0) != 3 || i32at(label, i0) == visit) continue;
      let top: i32 = 0;
      setI32(stack, top++, i0);
      setI32(label, i0, visit);
      let count: i32 = 0;
      let edges: i32 = 0;
      while (top > 0) {
        const j = i32at(stack, --top);
        count++;
        for (let d = 0; d < 4; d++) {
          const q = d == 0 ? j - 1 : d == 1 ? j + 1 : d == 2 ? j - nx : j + nx;
          if (u8at(cls, q) == 3) {
            if (i32at(label, q) != visit) {
              setI32(label, q, visit);
              setI32(stack, top++, q);
            }
          } else edges++;
        }
      }
      // PrusaSlicer measures the fill surface including the infill overlap.
      const islandArea = <f64>count * cellArea + <f64>edges * cell * (Math.PI / 4) * (perimBand - solidFrom);
      if (islandArea <= minIslandArea) {
        setI32(stack, 0, i0);
        top = 1;
        setU8(cls, i0, 2);
        while (top > 0) {
          const j = i32at(stack, --top);
          for (let d = 0; d < 4; d++) {
            const q = d == 0 ? j - 1 : d == 1 ? j + 1 : d == 2 ? j - nx : j + nx;
            if (u8at(cls, q) == 3) {
              setU8(cls, q, 2);
              setI32(stack, top++, q);
            }
          }
        }
      }
    }
  }
  // Bridges: solid over air or sparse infill, ignoring strips too thin to bridge.
  for (let r = r0 + 1; r < r1 - 1; r++) {
    for (let i = r * nx + c0 + 1, e = r * nx + c1 - 1; i < e; i++) {
      setU8(core, i, bridgeCandidate(i) && bridgeCandidate(i - 1) && bridgeCandidate(i + 1) && bridgeCandidate(i - nx) && bridgeCandidate(i + nx) ? 1 : 0);
    }
  }
  for (let r = r0; r < r1; r++) {
    for (let i = r * nx + c0, e = r * nx + c1; i < e; i++) {
      const c = u8at(cls, i);
      if (c == 0) continue;
      // Fractional coverage of the cell by each band, so a 0.2 mm grid resolves a 0.8 mm band.
      const db = Math.sqrt(<f64>load<f32>(dist2 + (<usize>i << 2))) * cell - cell / 2;
      const fp = (perimBand - db) / cell + 0.5;
      perimCells += fp >= 1 ? 1 : fp > 0 ? fp : 0;
      if (c == 2) {
        const fiRaw = (db - solidFrom) / cell + 0.5;
        const fi = fiRaw >= 1 ? 1 : fiRaw > 0 ? fiRaw : 0;
        const bridge =
          !first &&
          bridgeCandidate(i) &&
          (u8at(core, i) | u8at(core, i - 1) | u8at(core, i + 1) | u8at(core, i - nx) | u8at(core, i + nx)) == 1;
        // Which solid it is, kept in the labels (negative: the islands' visit numbers are positive)
        // for the regions' outlines below.
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
  for (let r = r0; r < r1; r++) {
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

const BORDER: i32 = 1 << 30;

@inline function runParent(r: i32): i32 {
  return load<i32>(runs + (<usize>r * 12), 8) & ~BORDER;
}

function runRoot(r: i32): i32 {
  let root = r;
  while (runParent(root) != root) root = runParent(root);
  // Path compression, keeping each run's border bit.
  while (runParent(r) != root) {
    const next = runParent(r);
    const p = runs + (<usize>r * 12) + 8;
    store<i32>(p, (load<i32>(p) & BORDER) | root);
    r = next;
  }
  return root;
}

function runUnion(a: i32, b: i32): void {
  const ra = runRoot(a), rb = runRoot(b);
  if (ra == rb) return;
  const pa = runs + (<usize>ra * 12) + 8, pb = runs + (<usize>rb * 12) + 8;
  store<i32>(pb, (load<i32>(pb) & BORDER) | ra);
  store<i32>(pa, load<i32>(pa) | (load<i32>(pb) & BORDER));
}

/** What `components` counts: cells inside, or background cells away from the border. */
const INSIDE: i32 = 0;
const BACKGROUND: i32 = 1;

@inline function counted(what: i32, mask: usize, i: i32): bool {
  return what == INSIDE ? u8at(mask, i) != 0 : u8at(mask, i) == 0;
}

/**
 * Counts the 4-connected components of the window's inside cells, or of its background cells
 * not touching the window's border (holes), from runs of cells along the rows joined where they
 * overlap the runs of the row above (union-find): the cells are read once, the rest is per run.
 */
function components(mask: usize, what: i32, c0: i32, c1: i32, r0: i32, r1: i32): i32 {
  let count: i32 = 0;
  let prevFrom: i32 = 0, prevTo: i32 = 0;
  for (let r = r0; r < r1; r++) {
    const from = count;
    const row = r * nx;
    let c = c0;
    while (c < c1) {
      while (c < c1 && !counted(what, mask, row + c)) c++;
      if (c >= c1) break;
      const start = c;
      while (c < c1 && counted(what, mask, row + c)) c++;
      const border = what == BACKGROUND && (r == r0 || r == r1 - 1 || start == c0 || c == c1);
      const o = runs + (<usize>count * 12);
      store<i32>(o, start);
      store<i32>(o, c, 4);
      store<i32>(o, count | (border ? BORDER : 0), 8);
      count++;
    }
    // Join with the runs of the row above that share a column.
    let p = prevFrom;
    for (let q = from; q < count; q++) {
      const qs = load<i32>(runs + (<usize>q * 12)), qe = load<i32>(runs + (<usize>q * 12), 4);
      while (p < prevTo && load<i32>(runs + (<usize>p * 12), 4) <= qs) p++;
      for (let t = p; t < prevTo && load<i32>(runs + (<usize>t * 12)) < qe; t++) runUnion(t, q);
    }
    prevFrom = from;
    prevTo = count;
  }
  let result: i32 = 0;
  for (let q = 0; q < count; q++) {
    if (runParent(q) != q) continue;
    if ((load<i32>(runs + (<usize>q * 12), 8) & BORDER) == 0) result++;
  }
  return result;
}
