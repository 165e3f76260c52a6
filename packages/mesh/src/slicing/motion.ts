/**
 * Time of one straight move of length `len` that starts and ends at `vEdge`, cruises at
 * `v` and accelerates at `a` (trapezoid, or triangle when it never reaches `v`) — the
 * model PrusaSlicer's G-code time estimator uses for Marlin.
 */
export function moveTime(len: number, v: number, a: number, vEdge: number): number {
  if (len <= 0) return 0;
  const ve = Math.min(vEdge, v);
  const dAcc = (v * v - ve * ve) / (2 * a);
  if (2 * dAcc <= len) return (len - 2 * dAcc) / v + (2 * (v - ve)) / a;
  const vPeak = Math.sqrt(ve * ve + a * len);
  return (2 * (vPeak - ve)) / a;
}

/** Time for `total` mm made of pieces `piece` mm long, each starting and ending at `vEdge`. */
export function linesTime(total: number, piece: number, v: number, a: number, vEdge: number): number {
  if (total <= 0) return 0;
  const p = Math.max(1e-3, Math.min(piece, total));
  const n = total / p;
  return n * moveTime(p, v, a, vEdge);
}
