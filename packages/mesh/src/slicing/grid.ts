/** One object's grid: cells of `cell` mm, nx by ny, the first cell's corner at (x0, y0). */
export interface Grid {
  x0: number;
  y0: number;
  cell: number;
  nx: number;
  ny: number;
}
