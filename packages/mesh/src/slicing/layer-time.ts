import type { PrintSettings } from '../settings.ts';
import { moveTime, sequenceTime, type AxisLimits, type PlannedMove } from './motion.ts';

/** What a layer extrudes of one kind at one speed: its length, cut into pieces that start and end at a corner. */
export interface Extrusion {
  kind: 'perimeter' | 'skin' | 'infill';
  /** Length (mm) and how many pieces it is made of (each starts and ends at the jerk speed). */
  length: number;
  pieces: number;
  /** Feedrate (mm/s) and the acceleration PrusaSlicer sets for it (M204). */
  speed: number;
  accel: number;
  /** Whether the minimum layer time slows it down (everything but bridges, as PrusaSlicer's CoolingBuffer). */
  slows: boolean;
}

/** Retracting travels of a layer: how many, and how far each goes. */
export interface Travels {
  count: number;
  distance: number;
}

export interface LayerSeconds {
  /** Extrusion time per kind at the speeds the layer prints at (after the minimum layer time). */
  perimeter: number;
  skin: number;
  infill: number;
  travel: number;
  /** What the minimum layer time added. */
  slowdown: number;
}

/**
 * A layer's print time as PrusaSlicer 2.5 makes and estimates it, from the profile's speeds
 * and the machine's limits (docs/quote-engine.md, "Time"):
 *
 * - each extrusion is pieces from corner to corner: a trapezoid between the jerk speed and its
 *   feedrate, at its M204 acceleration capped by the axes' limits (averaged over directions);
 * - each retracting travel is the G-code PrusaSlicer writes for it (wipe back along the path
 *   while retracting 95 %, the rest of the retraction, lift, travel, lower, unretract; the
 *   layer's first travel without the wipe), timed by PrusaSlicer's own planner (sequenceTime:
 *   per-axis feedrates, accelerations and jerk, so a 0.4 mm lift at 200 mm/s² and 0.4 mm/s jerk
 *   costs 86 ms, not 0.4/12 s);
 * - the minimum layer time is PrusaSlicer's CoolingBuffer: it adds up each move's length over
 *   its feedrate (no acceleration) and, below slowdown_below_layer_time, caps the feedrate of
 *   every extrusion but bridges at the one speed (not below min_print_speed) that makes that sum
 *   the minimum; the machine then takes longer than that (accelerations, the real travel moves),
 *   which is why a slowed layer takes more than the minimum.
 */
/**
 * Planned times by the settings they depend on, kept from one estimate to the next (a process
 * estimating file after file plans each travel length once); a few settings' worth at most.
 */
const plannedBySettings = new Map<string, Map<string, number>>();

export class LayerTimer {
  private readonly s: PrintSettings;
  private readonly limits: AxisLimits;
  private readonly fixedCache: Map<string, number>;
  private last?: {
    extrusions: readonly Extrusion[];
    travels: readonly Travels[];
    height: number;
    seconds: LayerSeconds;
  };

  constructor(s: PrintSettings) {
    this.s = s;
    const m = s.machine;
    this.limits = {
      feed: [m.maxFeedrateXY, m.maxFeedrateXY, s.maxFeedrateZ, m.maxFeedrateE],
      accel: [m.maxAccelXY, m.maxAccelXY, m.maxAccelZ, m.maxAccelE],
      jerk: [s.jerkMmS, s.jerkMmS, m.jerkZ, m.jerkE],
    };
    const key = JSON.stringify([
      s.machine,
      s.speeds.travel,
      s.accel,
      s.jerkMmS,
      s.maxFeedrateZ,
      s.retractLengthMm,
      s.retractSpeedMmS,
      s.retractLiftMm,
      s.wipe,
    ]);
    let cache = plannedBySettings.get(key);
    if (!cache) {
      if (plannedBySettings.size >= 8) plannedBySettings.clear();
      cache = new Map();
      plannedBySettings.set(key, cache);
    }
    this.fixedCache = cache;
  }

  /**
   * A move's acceleration: what is asked, capped by the extruding limit and by each axis' limit
   * for its direction (PrusaSlicer divides an axis' limit by the axis' share of the move),
   * averaged over directions, as moves go every way.
   */
  effectiveAccel(asked: number, extruding = true): number {
    const key = `accel:${asked}:${extruding}`;
    const hit = this.fixedCache.get(key);
    if (hit !== undefined) return hit;
    const a = extruding ? Math.min(asked, this.s.machine.maxAccelExtruding) : asked;
    let sum = 0;
    const steps = 9;
    for (let i = 0; i < steps; i++) {
      const phi = ((i + 0.5) / steps) * (Math.PI / 4);
      sum += Math.min(a, this.s.machine.maxAccelXY / Math.cos(phi));
    }
    this.fixedCache.set(key, sum / steps);
    return sum / steps;
  }

  /** The moves of one retracting travel of `distance` mm in the direction `phi`. */
  private retractMoves(distance: number, phi: number, wipe: boolean): PlannedMove[] {
    const s = this.s;
    const travel = s.speeds.travel,
      lift = s.retractLiftMm,
      length = s.retractLengthMm;
    const moves: PlannedMove[] = [];
    const retract = s.machine.maxAccelRetracting;
    if (length > 0 && wipe) {
      // Wipe: back along the path at 80 % of the travel speed while 95 % of the retraction runs.
      const wipeSpeed = 0.8 * travel;
      const wipeLength = ((0.95 * length) / s.retractSpeedMmS) * wipeSpeed;
      moves.push({ d: [-wipeLength, 0, 0, -0.95 * length], feed: wipeSpeed, accel: s.accel.default });
      moves.push({ d: [0, 0, 0, -0.05 * length], feed: s.retractSpeedMmS, accel: retract });
    } else if (length > 0) moves.push({ d: [0, 0, 0, -length], feed: s.retractSpeedMmS, accel: retract });
    if (lift > 0) moves.push({ d: [0, 0, lift, 0], feed: travel, accel: s.accel.travel });
    moves.push({
      d: [distance * Math.cos(phi), distance * Math.sin(phi), 0, 0],
      feed: travel,
      accel: s.accel.travel,
    });
    if (lift > 0) moves.push({ d: [0, 0, -lift, 0], feed: travel, accel: s.accel.travel });
    if (length > 0) moves.push({ d: [0, 0, 0, length], feed: s.retractSpeedMmS, accel: retract });
    return moves;
  }

  /** Seconds of one retracting travel of `distance` mm, averaged over directions. */
  retractTravel(distance: number, wipe: boolean): number {
    const key = `${distance.toFixed(2)}:${wipe}`;
    const hit = this.fixedCache.get(key);
    if (hit !== undefined) return hit;
    let sum = 0;
    const steps = 3;
    for (let i = 0; i < steps; i++)
      sum += sequenceTime(
        this.retractMoves(distance, ((i + 0.5) / steps) * (Math.PI / 4), wipe),
        this.limits,
      );
    const t = sum / steps;
    if (this.fixedCache.size < 4096) this.fixedCache.set(key, t);
    return t;
  }

  /** The same travel as the CoolingBuffer counts it: each move's length over its feedrate. */
  retractTravelNominal(distance: number, wipe: boolean): number {
    // The moves around the travel, then the travel itself at its feedrate.
    const key = `nominal:${wipe}`;
    let around = this.fixedCache.get(key);
    if (around === undefined) {
      around = 0;
      for (const m of this.retractMoves(0, 0, wipe)) {
        const xyz = Math.hypot(m.d[0], m.d[1], m.d[2]);
        around += (xyz > 0 ? xyz : Math.abs(m.d[3])) / m.feed;
      }
      this.fixedCache.set(key, around);
    }
    return around + distance / this.s.speeds.travel;
  }

  /** Seconds of the move up to the next layer. */
  layerChange(height: number): number {
    return sequenceTime(
      [{ d: [0, 0, height, 0], feed: this.s.speeds.travel, accel: this.s.accel.travel }],
      this.limits,
    );
  }

  private extrusionTime(e: Extrusion, speed: number): number {
    if (!(e.length > 0)) return 0;
    const pieces = Math.max(1, e.pieces);
    return pieces * moveTime(e.length / pieces, speed, e.accel, this.s.jerkMmS);
  }

  /**
   * The one feedrate cap on the extrusions that slow which brings their length / feedrate to
   * `target` seconds (Infinity when they take that already; min_print_speed when even that is
   * too fast). Below a cap c the sum is Σ(v ≤ c) L/v + Σ(v > c) L / c, so between two of their
   * speeds it is solved exactly, the speeds taken from the highest down.
   */
  private slowdownCap(extrusions: readonly Extrusion[], target: number): number {
    const slowing = extrusions.filter((e) => e.slows && e.length > 0).sort((a, b) => b.speed - a.speed);
    if (!slowing.length) return Infinity;
    let fast = 0; // Σ L/v of the extrusions slower than the cap
    for (const e of slowing) fast += e.length / e.speed;
    if (fast >= target) return Infinity;
    let capped = 0; // Σ L of the extrusions at the cap
    for (let i = 0; i < slowing.length; i++) {
      const e = slowing[i]!;
      fast -= e.length / e.speed;
      capped += e.length;
      const next = i + 1 < slowing.length ? slowing[i + 1]!.speed : 0;
      const cap = capped / (target - fast);
      if (cap >= next && target > fast) return Math.max(this.s.minPrintSpeedMmS, Math.min(cap, e.speed));
    }
    return this.s.minPrintSpeedMmS;
  }

  /**
   * A layer's seconds: its extrusions at their speeds, or slowed to the minimum layer time,
   * its retracting travels (the first without a wipe) and the move up. A layer whose inputs are
   * the very ones of the layer before (a prism's) takes its seconds.
   */
  layer(extrusions: readonly Extrusion[], travels: readonly Travels[], height: number): LayerSeconds {
    const last = this.last;
    if (
      last &&
      last.height === height &&
      last.extrusions.length === extrusions.length &&
      last.travels.length === travels.length &&
      extrusions.every((e, i) => e === last.extrusions[i]) &&
      travels.every((t, i) => t === last.travels[i])
    ) {
      return last.seconds;
    }
    const seconds = this.time(extrusions, travels, height);
    this.last = { extrusions, travels, height, seconds };
    return seconds;
  }

  private time(extrusions: readonly Extrusion[], travels: readonly Travels[], height: number): LayerSeconds {
    const s = this.s;
    let travel = this.layerChange(height);
    let nominalFixed = height / s.speeds.travel;
    let first = true;
    for (const { count, distance } of travels) {
      if (!(count > 0)) continue;
      const plain = first ? Math.min(1, count) : 0;
      first = false;
      travel +=
        plain * this.retractTravel(distance, false) + (count - plain) * this.retractTravel(distance, s.wipe);
      nominalFixed +=
        plain * this.retractTravelNominal(distance, false) +
        (count - plain) * this.retractTravelNominal(distance, s.wipe);
    }
    for (const e of extrusions) if (!e.slows) nominalFixed += e.length / e.speed;
    const cap = this.slowdownCap(extrusions, s.minLayerTimeS - nominalFixed);
    const out: LayerSeconds = { perimeter: 0, skin: 0, infill: 0, travel, slowdown: 0 };
    for (const e of extrusions) {
      const fast = this.extrusionTime(e, e.speed);
      const slowed = e.slows ? this.extrusionTime(e, Math.min(e.speed, cap)) : fast;
      out[e.kind] += fast;
      out.slowdown += slowed - fast;
    }
    return out;
  }
}
