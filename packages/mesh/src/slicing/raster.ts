/**
 * Scanline rasteriser (nonzero winding, falling back to even-odd on rows an open mesh
 * leaves unbalanced) and an exact Euclidean distance transform, both over one reusable
 * grid so a layer costs no allocation.
 */
export interface Grid {
  x0: number;
  y0: number;
  cell: number;
  nx: number;
  ny: number;
}

export class LayerRasterizer {
  readonly grid: Grid;
  private rowCount: Uint32Array;
  private xs = new Float32Array(1024);
  private dirs = new Int8Array(1024);
  // EDT scratch
  private f: Float64Array;
  private v: Int32Array;
  private zz: Float64Array;
  private col: Float64Array;

  constructor(grid: Grid) {
    this.grid = grid;
    this.rowCount = new Uint32Array(grid.ny + 1);
    const n = Math.max(grid.nx, grid.ny);
    this.f = new Float64Array(n);
    this.v = new Int32Array(n);
    this.zz = new Float64Array(n + 1);
    this.col = new Float64Array(n);
  }

  /** Fills `out` (nx*ny, row-major) with 1 inside the cross-section, 0 outside. */
  rasterize(segs: Float32Array, s0: number, s1: number, out: Uint8Array): void {
    const { y0, cell, nx, ny } = this.grid;
    out.fill(0);
    const rc = this.rowCount;
    rc.fill(0);
    const inv = 1 / cell;
    for (let s = s0; s < s1; s++) {
      const o = s * 4;
      const ya = segs[o + 1]!, yb = segs[o + 3]!;
      if (ya === yb) continue;
      const lo = ya < yb ? ya : yb, hi = ya < yb ? yb : ya;
      const j0 = Math.max(0, Math.ceil((lo - y0) * inv - 0.5));
      const j1 = Math.min(ny, Math.ceil((hi - y0) * inv - 0.5));
      for (let j = j0; j < j1; j++) rc[j + 1]!++;
    }
    for (let j = 0; j < ny; j++) rc[j + 1]! += rc[j]!;
    const total = rc[ny]!;
    if (total > this.xs.length) {
      this.xs = new Float32Array(total * 2);
      this.dirs = new Int8Array(total * 2);
    }
    const xs = this.xs, dirs = this.dirs;
    const fill = rc.slice(0, ny);
    for (let s = s0; s < s1; s++) {
      const o = s * 4;
      const xa = segs[o]!, ya = segs[o + 1]!, xb = segs[o + 2]!, yb = segs[o + 3]!;
      if (ya === yb) continue;
      const lo = ya < yb ? ya : yb, hi = ya < yb ? yb : ya;
      const j0 = Math.max(0, Math.ceil((lo - y0) * inv - 0.5));
      const j1 = Math.min(ny, Math.ceil((hi - y0) * inv - 0.5));
      const slope = (xb - xa) / (yb - ya);
      const dir = yb > ya ? 1 : -1;
      for (let j = j0; j < j1; j++) {
        const y = y0 + (j + 0.5) * cell;
        const k = fill[j]!++;
        xs[k] = xa + (y - ya) * slope;
        dirs[k] = dir;
      }
    }
    for (let j = 0; j < ny; j++) {
      const a = rc[j]!, b = rc[j + 1]!;
      if (b - a < 2) continue;
      // Insertion sort: rows rarely hold more than a few dozen crossings.
      for (let i = a + 1; i < b; i++) {
        const x = xs[i]!, d = dirs[i]!;
        let k = i - 1;
        while (k >= a && xs[k]! > x) {
          xs[k + 1] = xs[k]!;
          dirs[k + 1] = dirs[k]!;
          k--;
        }
        xs[k + 1] = x;
        dirs[k + 1] = d;
      }
      let w = 0;
      for (let i = a; i < b; i++) w += dirs[i]!;
      const row = j * nx;
      if (w === 0) {
        let start = 0;
        w = 0;
        for (let i = a; i < b; i++) {
          const prev = w;
          w += dirs[i]!;
          if (prev === 0 && w !== 0) start = xs[i]!;
          else if (prev !== 0 && w === 0) this.span(out, row, start, xs[i]!);
        }
      } else {
        for (let i = a; i + 1 < b; i += 2) this.span(out, row, xs[i]!, xs[i + 1]!);
      }
    }
  }

  private span(out: Uint8Array, row: number, xa: number, xb: number): void {
    const { x0, cell, nx } = this.grid;
    const i0 = Math.max(0, Math.ceil((xa - x0) / cell - 0.5));
    const i1 = Math.min(nx, Math.ceil((xb - x0) / cell - 0.5));
    if (i1 > i0) out.fill(1, row + i0, row + i1);
  }

  /**
   * Squared distance (in cells) from each inside cell centre to the nearest outside
   * cell centre (Felzenszwalb-Huttenlocher). Outside cells get 0.
   */
  distance(mask: Uint8Array, out: Float32Array, c0: number, c1: number, r0: number, r1: number): void {
    const { nx } = this.grid;
    const INF = 1e20;
    const f = this.f, col = this.col;
    const rows = r1 - r0;
    for (let i = c0; i < c1; i++) {
      let any = false;
      for (let j = 0; j < rows; j++) {
        const inside = mask[(j + r0) * nx + i] !== 0;
        f[j] = inside ? INF : 0;
        if (inside) any = true;
      }
      if (!any) {
        for (let j = 0; j < rows; j++) out[(j + r0) * nx + i] = 0;
        continue;
      }
      this.edt1d(f, rows, col);
      for (let j = 0; j < rows; j++) out[(j + r0) * nx + i] = col[j]!;
    }
    const cols = c1 - c0;
    for (let j = r0; j < r1; j++) {
      const row = j * nx + c0;
      let any = false;
      for (let i = 0; i < cols; i++) {
        const d = out[row + i]!;
        f[i] = d;
        if (d > 0) any = true;
      }
      if (!any) continue;
      this.edt1d(f, cols, col);
      for (let i = 0; i < cols; i++) out[row + i] = col[i]!;
    }
  }

  private edt1d(f: Float64Array, n: number, d: Float64Array): void {
    const v = this.v, z = this.zz;
    let k = 0;
    v[0] = 0;
    z[0] = -Infinity;
    z[1] = Infinity;
    for (let q = 1; q < n; q++) {
      const fq = f[q]! + q * q;
      let vk = v[k]!;
      let s = (fq - (f[vk]! + vk * vk)) / (2 * (q - vk));
      while (s <= z[k]!) {
        k--;
        vk = v[k]!;
        s = (fq - (f[vk]! + vk * vk)) / (2 * (q - vk));
      }
      k++;
      v[k] = q;
      z[k] = s;
      z[k + 1] = Infinity;
    }
    k = 0;
    for (let q = 0; q < n; q++) {
      while (z[k + 1]! < q) k++;
      const vk = v[k]!;
      d[q] = (q - vk) * (q - vk) + f[vk]!;
    }
  }
}
