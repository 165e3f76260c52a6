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

/** Per-axis machine limits (x, y, z, e), as PrusaSlicer's time estimate reads them. */
export interface AxisLimits {
  feed: readonly [number, number, number, number];
  accel: readonly [number, number, number, number];
  jerk: readonly [number, number, number, number];
}

/** One G1 move: its displacement on x, y, z, e (mm), the feedrate asked for (mm/s) and the acceleration (mm/s²). */
export interface PlannedMove {
  d: readonly [number, number, number, number];
  feed: number;
  accel: number;
}

interface Block {
  dist: number;
  accel: number;
  cruise: number;
  entry: number;
  maxEntry: number;
  safe: number;
  nominal: boolean;
}

/**
 * Time of a sequence of moves as PrusaSlicer 2.5's G-code processor plans it for Marlin
 * (GCodeProcessor::process_G1 and its planner passes): each axis' feedrate and acceleration
 * capped by its limits, a move's exit and entry speeds limited by the per-axis jerk at each
 * junction, then the reverse and forward passes and a trapezoid per move. The sequence starts
 * and ends at rest (at the safe feedrate), as around a retraction.
 */
export function sequenceTime(moves: readonly PlannedMove[], limits: AxisLimits): number {
  const blocks: Block[] = [];
  let prevFeed = 0;
  let prevAxis = [0, 0, 0, 0];
  let prevSafe = 0;
  for (const move of moves) {
    const sq = move.d[0] ** 2 + move.d[1] ** 2 + move.d[2] ** 2;
    const dist = sq > 0 ? Math.sqrt(sq) : Math.abs(move.d[3]);
    if (!(dist > 0)) continue;
    const axis = move.d.map((v) => (move.feed * v) / dist);
    let k = 1;
    for (let a = 0; a < 4; a++) if (axis[a] !== 0) k = Math.min(k, limits.feed[a]! / Math.abs(axis[a]!));
    const cruise = k * move.feed;
    for (let a = 0; a < 4; a++) axis[a]! *= k;
    let accel = move.accel;
    for (let a = 0; a < 4; a++) {
      const share = Math.abs(move.d[a]!) / dist;
      if (accel * share > limits.accel[a]!) accel = limits.accel[a]! / share;
    }
    let safe = cruise;
    for (let a = 0; a < 4; a++)
      if (Math.abs(axis[a]!) > limits.jerk[a]!) safe = Math.min(safe, limits.jerk[a]!);
    let vmax = safe;
    if (blocks.length && prevFeed > 1e-4) {
      const prevLarger = prevFeed > cruise;
      const factor = prevLarger ? cruise / prevFeed : prevFeed / cruise;
      vmax = prevLarger ? cruise : prevFeed;
      let scale = 1;
      let limited = false;
      for (let a = 0; a < 4; a++) {
        let vExit = prevAxis[a]!;
        let vEntry = axis[a]!;
        if (prevLarger) vExit *= factor;
        if (limited) {
          vExit *= scale;
          vEntry *= scale;
        }
        // Coasting in the same direction, or a reversal or a stop of the axis.
        const jerk =
          vExit > vEntry
            ? vEntry > 0 || vExit < 0
              ? vExit - vEntry
              : Math.max(vExit, -vEntry)
            : vEntry < 0 || vExit > 0
              ? vEntry - vExit
              : Math.max(-vExit, vEntry);
        if (jerk > limits.jerk[a]!) {
          scale *= limits.jerk[a]! / jerk;
          limited = true;
        }
      }
      if (limited) vmax *= scale;
      if (prevSafe > vmax * 0.99 && safe > vmax * 0.99) vmax = safe;
    }
    const allowed = Math.sqrt(safe * safe + 2 * accel * dist);
    blocks.push({
      dist,
      accel,
      cruise,
      entry: Math.min(vmax, allowed),
      maxEntry: vmax,
      safe,
      nominal: cruise <= allowed,
    });
    prevFeed = move.feed;
    prevAxis = axis;
    prevSafe = safe;
  }
  // Reverse pass (a block must be able to slow down to the next one's entry), then forward
  // pass (and speed up from its own); a block's exit is the next one's entry.
  for (let i = blocks.length - 1; i > 0; i--) {
    const b = blocks[i - 1]!;
    if (!b.nominal) b.entry = Math.min(b.maxEntry, Math.sqrt(blocks[i]!.entry ** 2 + 2 * b.accel * b.dist));
    else b.entry = b.maxEntry;
  }
  for (let i = 0; i + 1 < blocks.length; i++) {
    const b = blocks[i]!,
      next = blocks[i + 1]!;
    if (!b.nominal && b.entry < next.entry)
      next.entry = Math.min(next.entry, Math.sqrt(b.entry ** 2 + 2 * b.accel * b.dist));
  }
  let time = 0;
  blocks.forEach((b, i) => {
    const exit = i + 1 < blocks.length ? blocks[i + 1]!.entry : b.safe;
    time += trapezoidTime(b.dist, b.accel, b.entry, b.cruise, exit);
  });
  return time;
}

/** Time of one move from `entry` to `exit` speed, cruising at `cruise` where there is room. */
function trapezoidTime(dist: number, a: number, entry: number, cruise: number, exit: number): number {
  let accelDist = Math.max(0, (cruise * cruise - entry * entry) / (2 * a));
  const decelDist = Math.max(0, (cruise * cruise - exit * exit) / (2 * a));
  let cruiseDist = dist - accelDist - decelDist;
  let peak = cruise;
  if (cruiseDist < 0) {
    accelDist = Math.min(Math.max((2 * a * dist - entry * entry + exit * exit) / (4 * a), 0), dist);
    cruiseDist = 0;
    peak = Math.sqrt(Math.max(0, entry * entry + 2 * a * accelDist));
  }
  const decel = dist - accelDist - cruiseDist;
  return (
    (peak - entry) / a +
    (peak > 0 ? cruiseDist / peak : 0) +
    (peak - Math.sqrt(Math.max(0, peak * peak - 2 * a * decel))) / a
  );
}
