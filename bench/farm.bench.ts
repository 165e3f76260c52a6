/**
 * The print farm's day (issue 11): a discrete-event simulation in virtual time of 40 printers
 * (mixed sizes, 6 materials, 12 colours) printing 2,000 order items whose sizes and print times are
 * the real model set's slicer reference numbers (/work/shared/models/REFERENCE.tsv: PrusaSlicer's
 * bounding box and estimated print time per model and scale), with 3 % failed prints reprinted
 * through the print-job lifecycle. The same day runs twice: with the dispatch planner, and with a
 * plain first-in-first-out dispatcher (the next free printer takes the first queued job that fits
 * it, changing spools as needed). Then the planner's decision time with 10,000 queued jobs and 300
 * printers: the pure planner in process, then the real dispatcher on PostgreSQL.
 *
 *   npm run bench:farm [-- --seed 11] [-- --models /work/shared/models] [-- --history 20000]
 *
 * The day and the first decision times are the pure planner
 * (apps/server/src/modules/production/dispatch-planner.ts) in this process, no database. The
 * PostgreSQL phase (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) creates a
 * scratch database, bootstraps the real server context on it (no job workers, no autopilot, no
 * slicer, no demo data), makes 300 simulated printers through the printer repository and 10,000
 * queued print jobs (plus the jobs printing on the busy printers and a history of finished ones)
 * with set-based SQL, and times the farm dispatcher's `dispatchOnce()`: the printers and the queue
 * read from the database, the planner, and each assignment written with compare-and-set. Between
 * decisions the assigned jobs go back to the queue. The scratch database is dropped at the end,
 * also on failure. Seeded: the same seed gives the same day. The last line is one JSON object;
 * its `dispatchP95Ms` is the PostgreSQL figure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  FILAMENT_TYPES,
  afterPrintFailure,
  assertPrintJobTransition,
  printerConnectionSchema,
  SPOOL_MATERIALS,
  type PrinterSpool,
  type PrinterStatus,
  type PrintJobStatus,
} from '../packages/contracts/src/index.ts';
import { loadConfig } from '../apps/server/src/config.ts';
import { bootstrap, type Running } from '../apps/server/src/bootstrap.ts';
import { createScratchDatabase } from '../apps/server/test/test-app.ts';
import { createFarmDispatcher } from '../apps/server/src/modules/production/farm-dispatcher.ts';
import { createJobOutcomes } from '../apps/server/src/modules/production/job-outcomes.ts';
import {
  ANY_COLOUR,
  DEFAULT_PLANNER_OPTIONS,
  DispatchQueue,
  fitsBed,
  needsEnclosure,
  planDispatch,
  type PlannerJob,
  type PlannerPrinter,
  type PowerGroup,
  type Spool,
} from '../apps/server/src/modules/production/dispatch-planner.ts';

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const SEED = Number(arg('seed', '11'));
const MODELS = arg('models', process.env.LAYERLINE_MODELS ?? '/work/shared/models');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Finished jobs (QC passed, orders shipped) in the PostgreSQL phase's table beside the queue. */
const HISTORY = Number(arg('history', '20000'));

const ITEMS = 2_000;
const FAIL_RATE = 0.03; // two thirds fail during the print, one third at QC
const SPOOL_CHANGE_S = 10 * 60;
const BED_CLEAR_S = 5 * 60;
const QC_DELAY_S = 15 * 60;
const ARRIVALS_OVER_S = 24 * 3600; // the day's orders arrive over 24 hours
/** Power circuits like a real farm's: every 10 printers share one, which starts at most 2 prints a minute. */
const CIRCUIT = { printers: 10, maxStarts: 2, perSeconds: 60 } as const;
const circuitOf = (index: number): PowerGroup => ({
  id: `circuit-${Math.floor(index / CIRCUIT.printers) + 1}`,
  maxStarts: CIRCUIT.maxStarts,
  perSeconds: CIRCUIT.perSeconds,
});
const TARGETS = { utilisation: 0.9, colourChangeRatio: 0.5, dispatchP95Ms: 50 };
/** The farm's tick (FARM_TICK_S's default): decisions on PostgreSQL are this far apart on the dispatcher's clock. */
const TICK_MS = 2_000;
const COLOURS = [
  'black',
  'white',
  'grey',
  'red',
  'blue',
  'green',
  'yellow',
  'orange',
  'purple',
  'silver',
  'teal',
  'pink',
];
const MATERIAL_WEIGHTS: Record<string, number> = { PLA: 50, PETG: 20, ABS: 9, ASA: 8, TPU: 8, Nylon: 5 };
const log = (line: string) => console.log(line);

/* ---------------------------------------------------------------- seeded randomness */

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** A number in [0, 1) fixed by a key, so both runs see the same failures for the same print attempt. */
function keyedRandom(key: string): number {
  let h = 2166136261 ^ SEED;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return mulberry32(h)();
}
const pickWeighted = <T>(rand: () => number, items: readonly T[], weight: (t: T, i: number) => number): T => {
  const total = items.reduce((s, t, i) => s + weight(t, i), 0);
  let r = rand() * total;
  for (let i = 0; i < items.length; i++) {
    r -= weight(items[i]!, i);
    if (r < 0) return items[i]!;
  }
  return items[items.length - 1]!;
};

/* ---------------------------------------------------------------- the real model set */

interface ModelQuote {
  name: string;
  size: { x: number; y: number; z: number };
  grams: number;
  printSeconds: number;
}

function readQuotes(): ModelQuote[] {
  const file = path.join(MODELS, 'REFERENCE.tsv');
  const [header, ...rows] = fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const col = (name: string) => header!.indexOf(name);
  const quotes: ModelQuote[] = [];
  for (const row of rows) {
    const seconds = Number(row[col('prusa_time_s')]);
    const grams = Number(row[col('prusa_filament_g')]);
    const bbox = (row[col('bbox_mm')] ?? '').split('x').map(Number);
    // A quote the slicer could not make, or a part under a minute (a sub-millimetre mesh at scale 1), is no order item.
    if (!(seconds >= 60) || !(grams > 0) || bbox.length !== 3 || bbox.some((n) => !(n > 0))) continue;
    quotes.push({
      name: `${row[col('model')]} ×${row[col('scale')]}`,
      size: { x: bbox[0]!, y: bbox[1]!, z: bbox[2]! },
      grams,
      printSeconds: seconds,
    });
  }
  if (quotes.length < 10) throw new Error(`Too few usable quotes in ${file}`);
  return quotes;
}

/* ---------------------------------------------------------------- the farm and the day */

interface FarmPrinter extends PlannerPrinter {
  readonly model: string;
}

function makeFarm(count: number, rand: () => number): FarmPrinter[] {
  const kinds = [
    { model: 'MK4', share: 16, bed: { x: 250, y: 210, z: 220 }, nozzleMm: 0.4, materials: undefined, enclosed: false },
    {
      model: 'Mini',
      share: 10,
      bed: { x: 180, y: 180, z: 180 },
      nozzleMm: 0.4,
      materials: ['PLA', 'PETG', 'TPU'],
      enclosed: false,
    },
    { model: 'X1', share: 8, bed: { x: 256, y: 256, z: 256 }, nozzleMm: 0.4, materials: undefined, enclosed: true },
    { model: 'Voron 350', share: 4, bed: { x: 350, y: 350, z: 340 }, nozzleMm: 0.4, materials: undefined, enclosed: true },
    // An MK4 in an enclosure (Prusa's own), so ABS, ASA and Nylon have a 0.6 mm printer too.
    { model: 'MK4 0.6', share: 2, bed: { x: 250, y: 210, z: 220 }, nozzleMm: 0.6, materials: undefined, enclosed: true },
  ];
  const totalShare = kinds.reduce((s, k) => s + k.share, 0);
  const printers: FarmPrinter[] = [];
  for (const kind of kinds) {
    const n = Math.round((kind.share / totalShare) * count);
    for (let i = 0; i < n && printers.length < count; i++) {
      const allowed = (kind.materials ?? FILAMENT_TYPES).filter((m) => kind.enclosed || !needsEnclosure(m));
      const material = pickWeighted(rand, allowed, (m) => MATERIAL_WEIGHTS[m]!);
      printers.push({
        id: `${kind.model.toLowerCase().replace(/\W+/g, '-')}-${String(i + 1).padStart(3, '0')}`,
        model: kind.model,
        bed: kind.bed,
        nozzleMm: kind.nozzleMm,
        materials: kind.materials,
        enclosed: kind.enclosed,
        group: circuitOf(printers.length),
        loaded: { material, colour: COLOURS[Math.floor(rand() * COLOURS.length)]! },
        online: true,
        idle: true,
        bedClear: true,
        lastStartAt: null,
      });
    }
  }
  while (printers.length < count)
    printers.push({ ...printers[0]!, id: `extra-${printers.length}`, group: circuitOf(printers.length) });
  return printers;
}

interface Item {
  id: string;
  quote: ModelQuote;
  material: string;
  colour: string;
  nozzleMm: number;
  printSeconds: number;
  placedAtS: number;
  dueAtS: number | null;
  rush: boolean;
  sellerPriority: number;
}

function makeDay(quotes: ModelQuote[], rand: () => number): Item[] {
  const items: Item[] = [];
  let order = 0;
  while (items.length < ITEMS) {
    order += 1;
    const placedAtS = Math.floor(rand() * ARRIVALS_OVER_S);
    const rush = rand() < 0.05;
    const sellerPriority = rand() < 0.1 ? 1 : 0;
    const dueAtS = rand() < 0.2 ? placedAtS + Math.floor((24 + rand() * 72) * 3600) : null;
    const lines = 1 + Math.floor(rand() * 3);
    for (let l = 0; l < lines && items.length < ITEMS; l++) {
      const quote = quotes[Math.floor(rand() * quotes.length)]!;
      const material = pickWeighted(rand, FILAMENT_TYPES, (m) => MATERIAL_WEIGHTS[m]!);
      // Colours by popularity (Zipf-like); 15 % of parts are single-colour parts marked "any colour".
      const colour = rand() < 0.15 ? ANY_COLOUR : pickWeighted(rand, COLOURS, (_c, i) => 1 / (i + 1));
      const wide = rand() < 0.03; // a few parts sliced for a 0.6 mm nozzle: faster, coarser
      items.push({
        id: `o${order}-${l + 1}`,
        quote,
        material,
        colour,
        nozzleMm: wide ? 0.6 : 0.4,
        printSeconds: Math.round(quote.printSeconds * (wide ? 0.7 : 1)),
        placedAtS,
        dueAtS,
        rush,
        sellerPriority,
      });
    }
  }
  return items;
}

/* ---------------------------------------------------------------- the simulation */

/** An item's print job (its `attempt`-th) as the planner sees it. */
function plannerJobOf(item: Item, attempt: number, seq: number): PlannerJob {
  return {
    id: `${item.id}#${attempt}`,
    size: item.quote.size,
    material: item.material,
    colour: item.colour,
    nozzleMm: item.nozzleMm,
    printSeconds: item.printSeconds,
    orderPlacedAt: item.placedAtS * 1000,
    dueAt: item.dueAtS === null ? null : item.dueAtS * 1000,
    sellerPriority: item.sellerPriority,
    rush: item.rush,
    pinnedPrinterId: null,
    seq,
  };
}

interface SimJob {
  job: PlannerJob;
  item: Item;
  attempt: number;
  status: PrintJobStatus;
}

interface Dispatcher {
  readonly name: string;
  enqueue(job: SimJob): void;
  /** Assignments at `now` (s) for the ready printers; `nextWakeS` when the stagger held something back. */
  decide(
    printers: readonly FarmPrinter[],
    nowS: number,
  ): { assignments: { job: SimJob; printerId: string; spool: Spool | null }[]; nextWakeS: number | null };
  waitingFor(printer: FarmPrinter): boolean;
  readonly waiting: number;
}

const compatible = (job: PlannerJob, p: PlannerPrinter) =>
  Math.abs(job.nozzleMm - p.nozzleMm) < 1e-6 &&
  (!p.materials || p.materials.includes(job.material)) &&
  (p.enclosed || !needsEnclosure(job.material)) &&
  fitsBed(job.size, p.bed);
const serves = (spool: Spool | null, job: PlannerJob) =>
  spool !== null &&
  spool.material === job.material &&
  (job.colour === ANY_COLOUR || job.colour === spool.colour);
const isFree = (p: PlannerPrinter) => p.online && p.idle && p.bedClear;

/** Per printer, how many waiting jobs it could ever print: for "utilisation while work is waiting". */
class WaitingCounts {
  private readonly counts = new Map<string, number>();
  private readonly printers: readonly FarmPrinter[];
  constructor(printers: readonly FarmPrinter[]) {
    this.printers = printers;
  }
  add(job: PlannerJob, by: number) {
    for (const p of this.printers)
      if (compatible(job, p)) this.counts.set(p.id, (this.counts.get(p.id) ?? 0) + by);
  }
  has(printer: PlannerPrinter) {
    return (this.counts.get(printer.id) ?? 0) > 0;
  }
}

class PlannerDispatcher implements Dispatcher {
  readonly name = 'planner';
  readonly queue = new DispatchQueue([]);
  private readonly byId = new Map<string, SimJob>();
  private readonly counts: WaitingCounts;
  readonly decisionMs: number[] = [];
  constructor(printers: readonly FarmPrinter[]) {
    this.counts = new WaitingCounts(printers);
  }
  get waiting() {
    return this.queue.size;
  }
  enqueue(job: SimJob) {
    this.queue.add(job.job);
    this.byId.set(job.job.id, job);
    this.counts.add(job.job, 1);
  }
  waitingFor(p: FarmPrinter) {
    return this.counts.has(p);
  }
  decide(printers: readonly FarmPrinter[], nowS: number) {
    const t0 = performance.now();
    const decision = planDispatch(printers, this.queue, nowS * 1000);
    this.decisionMs.push(performance.now() - t0);
    const assignments = decision.assignments.map((a) => {
      const job = this.byId.get(a.jobId)!;
      this.queue.remove(a.jobId);
      this.byId.delete(a.jobId);
      this.counts.add(job.job, -1);
      return { job, printerId: a.printerId, spool: a.spoolChange };
    });
    return { assignments, nextWakeS: decision.nextStartAt === null ? null : decision.nextStartAt / 1000 };
  }
}

/** Plain FIFO: the next free printer takes the first queued job that fits it, changing spools as needed. */
class FifoDispatcher implements Dispatcher {
  readonly name = 'fifo';
  private queue: SimJob[] = [];
  private readonly counts: WaitingCounts;
  private readonly freeSince = new Map<string, number>();
  constructor(printers: readonly FarmPrinter[]) {
    this.counts = new WaitingCounts(printers);
  }
  get waiting() {
    return this.queue.length;
  }
  enqueue(job: SimJob) {
    this.queue.push(job);
    this.counts.add(job.job, 1);
  }
  waitingFor(p: FarmPrinter) {
    return this.counts.has(p);
  }
  decide(printers: readonly FarmPrinter[], nowS: number) {
    // The same stagger as the planner's: per circuit, by each printer's last start.
    const windowStart = nowS * 1000 - CIRCUIT.perSeconds * 1000;
    const startsIn = new Map<string, number[]>();
    for (const p of printers) {
      const starts = startsIn.get(p.group!.id) ?? [];
      startsIn.set(p.group!.id, starts);
      if (p.lastStartAt !== null && p.lastStartAt > windowStart) starts.push(p.lastStartAt);
    }
    const free = printers.filter(isFree);
    for (const p of free) if (!this.freeSince.has(p.id)) this.freeSince.set(p.id, nowS);
    free.sort((a, b) => this.freeSince.get(a.id)! - this.freeSince.get(b.id)! || (a.id < b.id ? -1 : 1));
    const assignments: { job: SimJob; printerId: string; spool: Spool | null }[] = [];
    const heldBack = new Set<string>();
    for (const p of free) {
      const at = this.queue.findIndex((j) => compatible(j.job, p));
      if (at < 0) continue;
      const starts = startsIn.get(p.group!.id)!;
      if (starts.length >= CIRCUIT.maxStarts) {
        heldBack.add(p.group!.id);
        continue;
      }
      const [job] = this.queue.splice(at, 1);
      this.counts.add(job!.job, -1);
      this.freeSince.delete(p.id);
      const spool = serves(p.loaded, job!.job)
        ? null
        : {
            material: job!.job.material,
            colour: job!.job.colour === ANY_COLOUR ? (p.loaded?.colour ?? 'black') : job!.job.colour,
          };
      assignments.push({ job: job!, printerId: p.id, spool });
      starts.push(nowS * 1000);
    }
    let nextWakeS: number | null = null;
    for (const id of heldBack) {
      const starts = startsIn.get(id)!.sort((a, b) => a - b);
      const at = (starts[starts.length - CIRCUIT.maxStarts]! + CIRCUIT.perSeconds * 1000) / 1000;
      if (nextWakeS === null || at < nextWakeS) nextWakeS = at;
    }
    return { assignments, nextWakeS };
  }
}

type Phase = 'idle' | 'changing' | 'printing' | 'clearing';
interface Event {
  t: number;
  seq: number;
  kind: 'arrive' | 'print-start' | 'print-end' | 'bed-clear' | 'qc' | 'wake';
  printerId?: string;
  job?: SimJob;
  items?: Item[];
}

class EventQueue {
  private readonly heap: Event[] = [];
  private seq = 0;
  get size() {
    return this.heap.length;
  }
  push(e: Omit<Event, 'seq'>) {
    const h = this.heap;
    h.push({ ...e, seq: this.seq++ });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  peek() {
    return this.heap[0];
  }
  pop(): Event {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
  private less(a: Event, b: Event) {
    return a.t < b.t || (a.t === b.t && a.seq < b.seq);
  }
}

interface DayResult {
  dispatcher: string;
  jobs: number;
  reprints: number;
  heldOrders: number;
  makespanHours: number;
  utilisation: number;
  colourChanges: number;
  decisions: number;
}

function simulate(
  items: readonly Item[],
  initialFarm: readonly FarmPrinter[],
  make: (farm: readonly FarmPrinter[]) => Dispatcher,
): DayResult & { dispatcherRef: Dispatcher } {
  const farm = new Map<string, FarmPrinter>(initialFarm.map((p) => [p.id, { ...p }]));
  const phase = new Map<string, Phase>(initialFarm.map((p) => [p.id, 'idle']));
  const dispatcher = make(initialFarm);
  const events = new EventQueue();
  const byArrival = new Map<number, Item[]>();
  for (const item of items) byArrival.set(item.placedAtS, [...(byArrival.get(item.placedAtS) ?? []), item]);
  for (const [t, arriving] of byArrival) events.push({ t, kind: 'arrive', items: arriving });

  const move = (job: SimJob, to: PrintJobStatus) => {
    assertPrintJobTransition(job.status, to);
    job.status = to;
  };
  let jobSeq = 0;
  const newJob = (item: Item, attempt: number): SimJob => ({ item, attempt, status: 'queued', job: plannerJobOf(item, attempt, jobSeq++) });

  let jobs = 0;
  let reprints = 0;
  let heldOrders = 0;
  let colourChanges = 0;
  let decisions = 0;
  let lastDone = 0;
  let printingS = 0;
  let availableS = 0;
  let now = 0;
  let wakeAt: number | null = null;
  const update = (id: string, patch: Partial<FarmPrinter>) => farm.set(id, { ...farm.get(id)!, ...patch });

  while (events.size > 0) {
    const t = events.peek()!.t;
    // Account the time since the last event: printing, overheads, and idle time while work waits for the printer.
    const dt = t - now;
    if (dt > 0) {
      for (const p of farm.values()) {
        const ph = phase.get(p.id)!;
        if (ph === 'printing') {
          printingS += dt;
          availableS += dt;
        } else if (ph !== 'idle' || dispatcher.waitingFor(p)) availableS += dt;
      }
    }
    now = t;
    while (events.size > 0 && events.peek()!.t === now) {
      const e = events.pop();
      if (e.kind === 'arrive') {
        for (const item of e.items!) {
          dispatcher.enqueue(newJob(item, 1));
          jobs += 1;
        }
      } else if (e.kind === 'print-start') {
        phase.set(e.printerId!, 'printing');
        move(e.job!, 'printing');
      } else if (e.kind === 'print-end') {
        phase.set(e.printerId!, 'clearing');
        update(e.printerId!, { idle: true, bedClear: false });
        events.push({ t: now + BED_CLEAR_S, kind: 'bed-clear', printerId: e.printerId });
        const failedNow = keyedRandom(`fail:${e.job!.job.id}`) < (FAIL_RATE * 2) / 3;
        if (failedNow) {
          move(e.job!, 'failed');
          events.push({ t: now, kind: 'qc', job: e.job });
        } else {
          move(e.job!, 'printed');
          events.push({ t: now + QC_DELAY_S, kind: 'qc', job: e.job });
        }
      } else if (e.kind === 'bed-clear') {
        phase.set(e.printerId!, 'idle');
        update(e.printerId!, { bedClear: true });
      } else if (e.kind === 'qc') {
        const job = e.job!;
        if (job.status === 'printed')
          move(
            job,
            keyedRandom(`qc:${job.job.id}`) < FAIL_RATE / 3 / (1 - (FAIL_RATE * 2) / 3)
              ? 'qc_failed'
              : 'qc_passed',
          );
        if (job.status === 'qc_passed') lastDone = Math.max(lastDone, now);
        else {
          const next = afterPrintFailure({
            id: job.job.id,
            status: job.status,
            attempt: job.attempt,
            partName: job.item.quote.name,
            failureReason: 'simulated failure',
          });
          if (next.kind === 'reprint') {
            dispatcher.enqueue(newJob(job.item, next.attempt));
            jobs += 1;
            reprints += 1;
          } else {
            heldOrders += 1;
            lastDone = Math.max(lastDone, now);
          }
        }
      } else if (e.kind === 'wake') {
        if (wakeAt === now) wakeAt = null;
      }
    }
    // Dispatch whenever something changed.
    if ([...farm.values()].some(isFree) && dispatcher.waiting > 0) {
      decisions += 1;
      const { assignments, nextWakeS } = dispatcher.decide([...farm.values()], now);
      for (const a of assignments) {
        const p = farm.get(a.printerId)!;
        move(a.job, 'assigned');
        move(a.job, 'uploading');
        let startAt = now;
        if (a.spool) {
          if (
            p.loaded === null ||
            p.loaded.material !== a.spool.material ||
            p.loaded.colour !== a.spool.colour
          )
            colourChanges += 1;
          startAt += SPOOL_CHANGE_S;
          phase.set(p.id, 'changing');
        } else phase.set(p.id, 'printing');
        update(p.id, { idle: false, bedClear: false, lastStartAt: now * 1000, loaded: a.spool ?? p.loaded });
        if (startAt === now) move(a.job, 'printing');
        else events.push({ t: startAt, kind: 'print-start', printerId: p.id, job: a.job });
        const failsAt =
          keyedRandom(`fail:${a.job.job.id}`) < (FAIL_RATE * 2) / 3
            ? 0.1 + 0.8 * keyedRandom(`at:${a.job.job.id}`)
            : 1;
        events.push({
          t: startAt + Math.round(a.job.job.printSeconds * failsAt),
          kind: 'print-end',
          printerId: p.id,
          job: a.job,
        });
      }
      if (nextWakeS !== null && (wakeAt === null || nextWakeS < wakeAt) && nextWakeS > now) {
        wakeAt = nextWakeS;
        events.push({ t: nextWakeS, kind: 'wake' });
      }
    }
  }
  if (dispatcher.waiting > 0) throw new Error(`${dispatcher.name}: ${dispatcher.waiting} jobs never printed`);
  return {
    dispatcher: dispatcher.name,
    dispatcherRef: dispatcher,
    jobs,
    reprints,
    heldOrders,
    makespanHours: lastDone / 3600,
    utilisation: printingS / availableS,
    colourChanges,
    decisions,
  };
}

/* ---------------------------------------------------------------- decision time at 10,000 × 300 */

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function measureDecisions(quotes: ModelQuote[], rand: () => number, partsPerPlate = 1) {
  const printers = makeFarm(300, rand);
  const items = () => makeDay(quotes, rand);
  let pool = items();
  let n = 0;
  const nextJob = (): PlannerJob => {
    if (pool.length === 0) pool = items();
    const item = pool.pop()!;
    return {
      id: `m${n++}`,
      size: item.quote.size,
      material: item.material,
      colour: item.colour,
      nozzleMm: item.nozzleMm,
      printSeconds: item.printSeconds,
      orderPlacedAt: item.placedAtS * 1000,
      dueAt: item.dueAtS === null ? null : item.dueAtS * 1000,
      sellerPriority: item.sellerPriority,
      rush: item.rush,
      pinnedPrinterId: rand() < 0.01 ? printers[Math.floor(rand() * printers.length)]!.id : null,
      plateKey: 'standard-0.2',
    };
  };
  const buildStarted = performance.now();
  // No stagger cap here: every ready printer gets a job, the heaviest decision.
  const queue = new DispatchQueue(Array.from({ length: 10_000 }, nextJob), {
    ...DEFAULT_PLANNER_OPTIONS,
    partsPerPlate,
  });
  const buildMs = performance.now() - buildStarted;
  const times: number[] = [];
  const assigned: number[] = [];
  const WARMUP = 50;
  const DECISIONS = 550;
  let nowMs = 30 * 3600_000;
  for (let d = 0; d < DECISIONS; d++) {
    nowMs += 60_000;
    // 5-20 % of the printers are ready at each decision; the rest are printing.
    const share = 0.05 + rand() * 0.15;
    const state = printers.map((p) => {
      const ready = rand() < share;
      const loaded =
        rand() < 0.7
          ? p.loaded
          : { material: p.materials?.[0] ?? 'PLA', colour: COLOURS[Math.floor(rand() * COLOURS.length)]! };
      return {
        ...p,
        group: null,
        loaded,
        idle: ready,
        bedClear: ready,
        lastStartAt: ready ? nowMs - 3600_000 : nowMs - 30_000 - Math.floor(rand() * 3600_000),
      };
    });
    const t0 = performance.now();
    const decision = planDispatch(state, queue, nowMs);
    const ms = performance.now() - t0;
    if (d >= WARMUP) {
      times.push(ms);
      assigned.push(decision.assignments.length);
    }
    // Keep the queue at 10,000: the assigned jobs (and their plates) leave, as many new ones arrive.
    const left = decision.assignments.flatMap((a) => (a.plate ? a.plate.map((p) => p.id) : [a.jobId]));
    for (const id of left) queue.remove(id);
    for (let i = 0; i < left.length; i++) queue.add(nextJob());
  }
  if (queue.size !== 10_000) throw new Error(`queue drifted to ${queue.size}`);
  return {
    buildMs,
    times,
    meanAssigned: assigned.reduce((s, a) => s + a, 0) / assigned.length,
    decisions: DECISIONS - WARMUP,
    warmup: WARMUP,
  };
}

/** A worst case for the index: 10,000 jobs in one group, too big for a third of the 300 printers, all ready at once. */
function measureWorstCase() {
  const printers = makeFarm(300, mulberry32(SEED + 1)).map((p) => ({
    ...p,
    materials: undefined,
    group: null,
    loaded: { material: 'PLA', colour: 'black' },
  }));
  const times: number[] = [];
  for (let round = 0; round < 30; round++) {
    const queue = new DispatchQueue(
      Array.from({ length: 10_000 }, (_, i) => ({
        id: `w${i}`,
        size: { x: 200, y: 190, z: 60 },
        material: 'PLA',
        colour: 'black',
        nozzleMm: 0.4,
        printSeconds: 3600,
        orderPlacedAt: i * 1000,
        dueAt: null,
        sellerPriority: 0,
        rush: false,
        pinnedPrinterId: null,
      })),
      DEFAULT_PLANNER_OPTIONS,
    );
    const t0 = performance.now();
    planDispatch(printers, queue, 0);
    if (round >= 5) times.push(performance.now() - t0);
  }
  return times;
}

/* ---------------------------------------------------------------- several parts per plate (issue 22) */

/**
 * The fixed cost of a plate, paid once however many parts it holds. The shared printer notes
 * (/work/shared/contracts/printers/*.md) name the phases (Bambu's PREPARE: "download/heating/
 * levelling"; PrusaLink's BUSY preheat) but give no durations, so these are the figures this bench
 * assumes, printed with its results: 5 min to heat bed and nozzle and level, and the bed clearing
 * the day above already uses (BED_CLEAR_S).
 */
const PLATE_HEAT_UP_S = 5 * 60;
const PLATE_TARGETS = { hoursRatio: 0.75, utilisation: 0.9, latePromises: 0 };
/** As much printing as the day above (≈ 4,800 printer-hours), made of small parts (≈ 24 min each). */
const SMALL_PARTS = 12_000;
const PARTS_PER_PLATE = 24;

/** The small parts of the model set: footprint and height at most 60 mm, printing at most 3 h. */
const smallQuotes = (all: readonly ModelQuote[]) =>
  all.filter((q) => q.size.x <= 60 && q.size.y <= 60 && q.size.z <= 60 && q.printSeconds <= 40 * 60);

/** A day of small-part orders: 1-3 lines each, 1-4 copies a line, two print settings. */
function makeSmallPartsDay(quotes: readonly ModelQuote[], rand: () => number): (Item & { plateKey: string })[] {
  const items: (Item & { plateKey: string })[] = [];
  let order = 0;
  while (items.length < SMALL_PARTS) {
    order += 1;
    const placedAtS = Math.floor(rand() * ARRIVALS_OVER_S);
    const rush = rand() < 0.05;
    const sellerPriority = rand() < 0.1 ? 1 : 0;
    const dueAtS = rand() < 0.2 ? placedAtS + Math.floor((24 + rand() * 72) * 3600) : null;
    const lines = 1 + Math.floor(rand() * 3);
    for (let l = 0; l < lines; l++) {
      const quote = quotes[Math.floor(rand() * quotes.length)]!;
      const material = pickWeighted(rand, FILAMENT_TYPES, (m) => MATERIAL_WEIGHTS[m]!);
      const colour = rand() < 0.15 ? ANY_COLOUR : pickWeighted(rand, COLOURS, (_c, i) => 1 / (i + 1));
      const plateKey = rand() < 0.8 ? 'standard-0.2' : 'fine-0.1';
      const copies = 1 + Math.floor(rand() * 4);
      for (let c = 0; c < copies && items.length < SMALL_PARTS; c++) {
        items.push({
          id: `s${order}-${l + 1}-${c + 1}`,
          quote,
          material,
          colour,
          nozzleMm: 0.4,
          printSeconds: quote.printSeconds,
          placedAtS,
          dueAtS,
          rush,
          sellerPriority,
          plateKey,
        });
      }
    }
  }
  return items;
}

interface PlateDay {
  parts: number;
  plates: number;
  partsPerPlate: number;
  printerHoursPerPart: number;
  utilisation: number;
  latePromises: number;
  makespanHours: number;
  reprints: number;
  decisionMs: number[];
}

/**
 * The small-parts day in virtual time with the planner, `partsPerPlate` at most per plate (1: today's
 * one part per plate). A plate occupies its printer for a spool change when asked, the heat-up, its
 * parts' print times and the bed clearing. A part failing during the print is skipped and the rest
 * finish (Klipper's exclude-object, Bambu's skip_objects); a failed part is reprinted alone, as a
 * new job that may join a later plate. `printerHoursPerPart`: the printer-hours plates occupy, per
 * part that passed QC. `latePromises`: parts that came off a plate of several after their promise
 * (their due date, or placed + the standard lead time) though printed alone from the plate's start
 * they would have kept it: late because of the plate, not because the farm was behind.
 */
function simulatePlates(
  items: readonly (Item & { plateKey: string })[],
  initialFarm: readonly FarmPrinter[],
  partsPerPlate: number,
): PlateDay {
  const farm = new Map<string, FarmPrinter>(initialFarm.map((p) => [p.id, { ...p }]));
  const queue = new DispatchQueue([], { partsPerPlate });
  const byId = new Map<string, SimJob & { plateKey: string }>();
  const counts = new WaitingCounts(initialFarm);
  const events = new EventQueue();
  const byArrival = new Map<number, Item[]>();
  for (const item of items) byArrival.set(item.placedAtS, [...(byArrival.get(item.placedAtS) ?? []), item]);
  for (const [t, arriving] of byArrival) events.push({ t, kind: 'arrive', items: arriving });
  const plateOf = new Map<string, { ids: string[]; printStartS: number }>();
  const decisionMs: number[] = [];

  let seq = 0;
  const enqueue = (item: Item & { plateKey?: string }, attempt: number) => {
    const sim = {
      item,
      attempt,
      status: 'queued' as PrintJobStatus,
      plateKey: (item as Item & { plateKey: string }).plateKey,
      job: { ...plannerJobOf(item, attempt, seq++), plateKey: (item as Item & { plateKey: string }).plateKey },
    };
    queue.add(sim.job);
    byId.set(sim.job.id, sim);
    counts.add(sim.job, 1);
  };
  const promiseOf = (item: Item) =>
    Math.min(item.dueAtS ?? Infinity, item.placedAtS + DEFAULT_PLANNER_OPTIONS.standardLeadTimeMs / 1000);

  let parts = 0;
  let plates = 0;
  let passed = 0;
  let reprints = 0;
  let occupiedS = 0;
  let printingS = 0;
  let availableS = 0;
  let late = 0;
  let lastDone = 0;
  let now = 0;
  let wakeAt: number | null = null;
  const busy = new Set<string>();
  const update = (id: string, patch: Partial<FarmPrinter>) => farm.set(id, { ...farm.get(id)!, ...patch });

  while (events.size > 0) {
    const t = events.peek()!.t;
    const dt = t - now;
    if (dt > 0)
      for (const p of farm.values()) if (busy.has(p.id) || counts.has(p)) availableS += dt;
    now = t;
    while (events.size > 0 && events.peek()!.t === now) {
      const e = events.pop();
      if (e.kind === 'arrive') {
        for (const item of e.items!) {
          enqueue(item, 1);
          parts += 1;
        }
      } else if (e.kind === 'print-end') {
        // The plate is done: every part on it comes off together, the bed is cleared next.
        const { ids, printStartS } = plateOf.get(e.printerId!)!;
        for (const id of ids) {
          const job = byId.get(id)!;
          byId.delete(id);
          // Late because of the plate: printed alone from the same start it would have made its promise.
          const promise = promiseOf(job.item);
          if (ids.length > 1 && now > promise && printStartS + job.job.printSeconds <= promise) late += 1;
          const failedNow = keyedRandom(`fail:${id}`) < (FAIL_RATE * 2) / 3;
          const failedQc = !failedNow && keyedRandom(`qc:${id}`) < FAIL_RATE / 3 / (1 - (FAIL_RATE * 2) / 3);
          if (!failedNow && !failedQc) {
            passed += 1;
            lastDone = Math.max(lastDone, now + QC_DELAY_S);
            continue;
          }
          const next = afterPrintFailure({
            id,
            status: failedNow ? 'failed' : 'qc_failed',
            attempt: job.attempt,
            partName: job.item.quote.name,
            failureReason: 'simulated failure',
          });
          if (next.kind === 'reprint') {
            reprints += 1;
            events.push({ t: now + (failedNow ? 0 : QC_DELAY_S), kind: 'qc', job: { ...job, attempt: next.attempt } });
          }
        }
        events.push({ t: now + BED_CLEAR_S, kind: 'bed-clear', printerId: e.printerId });
      } else if (e.kind === 'qc') {
        // A failed part goes back to the queue alone, as its next attempt.
        enqueue(e.job!.item, e.job!.attempt);
      } else if (e.kind === 'bed-clear') {
        busy.delete(e.printerId!);
        update(e.printerId!, { idle: true, bedClear: true });
      } else if (e.kind === 'wake') {
        if (wakeAt === now) wakeAt = null;
      }
    }
    if (queue.size > 0 && [...farm.values()].some(isFree)) {
      const t0 = performance.now();
      const decision = planDispatch([...farm.values()], queue, now * 1000);
      decisionMs.push(performance.now() - t0);
      for (const a of decision.assignments) {
        const ids = a.plate ? a.plate.map((p) => p.id) : [a.jobId];
        let seconds = 0;
        for (const id of ids) {
          const job = byId.get(id)!;
          queue.remove(id);
          counts.add(job.job, -1);
          seconds += job.job.printSeconds;
        }
        const p = farm.get(a.printerId)!;
        const setup = (a.spoolChange ? SPOOL_CHANGE_S : 0) + PLATE_HEAT_UP_S;
        plates += 1;
        printingS += seconds;
        occupiedS += setup + seconds + BED_CLEAR_S;
        plateOf.set(a.printerId, { ids, printStartS: now + setup });
        busy.add(a.printerId);
        update(p.id, { idle: false, bedClear: false, lastStartAt: now * 1000, loaded: a.spoolChange ?? p.loaded });
        events.push({ t: now + setup + seconds, kind: 'print-end', printerId: p.id });
      }
      const next = decision.nextStartAt === null ? null : decision.nextStartAt / 1000;
      if (next !== null && next > now && (wakeAt === null || next < wakeAt)) {
        wakeAt = next;
        events.push({ t: next, kind: 'wake' });
      }
    }
  }
  if (queue.size > 0) throw new Error(`plates: ${queue.size} jobs never printed`);
  return {
    parts,
    plates,
    partsPerPlate: (parts + reprints) / plates,
    printerHoursPerPart: occupiedS / 3600 / passed,
    utilisation: printingS / availableS,
    latePromises: late,
    makespanHours: lastDone / 3600,
    reprints,
    decisionMs,
  };
}

/* ---------------------------------------------------------------- the real dispatcher on PostgreSQL */

const PG_PRINTERS = 300;
const PG_QUEUED = 10_000;
/** Printers without a job: each decision, 10-20 of them have a clear bed (ready); the rest are printing. */
const PG_IDLE_POOL = 20;
const PG_WARMUP = 10;
const PG_DECISIONS = 100;
const HEX: Record<string, string> = {
  black: '#1a1a1a',
  white: '#f5f5f5',
  grey: '#808080',
  red: '#d32f2f',
  blue: '#1e88e5',
  green: '#43a047',
  yellow: '#fdd835',
  orange: '#fb8c00',
  purple: '#8e24aa',
  silver: '#c0c0c0',
  teal: '#00897b',
  pink: '#ec407a',
};
const hexOf = (colour: string) => (colour === ANY_COLOUR ? ANY_COLOUR : HEX[colour]!);

const printerStatus = (state: PrinterStatus['state']): PrinterStatus => ({
  state,
  progress: state === 'printing' ? 0.4 : null,
  fileName: state === 'printing' ? 'layerline-bench.gcode' : null,
  currentLayer: null,
  totalLayers: null,
  secondsLeft: state === 'printing' ? 3600 : null,
  temperatures: {
    nozzle: { actual: state === 'printing' ? 215 : 24, target: state === 'printing' ? 215 : 0 },
    bed: { actual: state === 'printing' ? 60 : 23, target: state === 'printing' ? 60 : 0 },
  },
  errorText: null,
});

/** One print_job row to insert (with its order and item), as the set-based insert reads it. */
interface JobSpec {
  ord: string;
  line: number;
  cls: 'h' | 'p' | 'q';
  part: string;
  material: string;
  colour: string;
  nozzle: number;
  sx: number;
  sy: number;
  sz: number;
  secs: number;
  grams: number;
  placed: string;
  due: string | null;
  rush: boolean;
  printer: string | null;
}

/**
 * `count` order items of the day's kind (the same quotes, materials, colours and orders of 1-3
 * items), placed over the `days` days before `endMs`, as jobs of class `cls`.
 */
function jobSpecs(
  quotes: ModelQuote[],
  rand: () => number,
  cls: JobSpec['cls'],
  count: number,
  endMs: number,
): JobSpec[] {
  const specs: JobSpec[] = [];
  const days = Math.ceil(count / ITEMS);
  for (let batch = 0; specs.length < count; batch++) {
    const dayStart = endMs - (days - batch) * 24 * 3600_000;
    for (const item of makeDay(quotes, rand)) {
      if (specs.length >= count) break;
      const [orderNo, line] = item.id.slice(1).split('-');
      const placed = dayStart + item.placedAtS * 1000;
      specs.push({
        ord: `B${cls}${batch}-${orderNo}`,
        line: Number(line),
        cls,
        part: item.quote.name,
        material: item.material,
        colour: hexOf(item.colour),
        nozzle: item.nozzleMm,
        sx: item.quote.size.x,
        sy: item.quote.size.y,
        sz: item.quote.size.z,
        secs: item.printSeconds,
        grams: item.quote.grams,
        placed: new Date(placed).toISOString(),
        due:
          item.dueAtS === null
            ? null
            : new Date(placed + (item.dueAtS - item.placedAtS) * 1000).toISOString(),
        rush: item.rush,
        printer: null,
      });
    }
  }
  return specs;
}

/** Orders, their items and one print job per item, in one statement (data-modifying CTEs). */
const INSERT_JOBS = `
WITH spec AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS s(
    ord text, line int, cls text, part text, material text, colour text, nozzle float8,
    sx float8, sy float8, sz float8, secs float8, grams float8, placed timestamptz,
    due timestamptz, rush boolean, printer uuid)
), orders AS (
  INSERT INTO "order" (owner_id, channel, platform, external_id, status, customer_name,
                       shipping_address, placed_at, search_text)
  SELECT $2, 'manual:' || $2, 'manual', s.ord,
         CASE min(s.cls) WHEN 'h' THEN 'shipped' WHEN 'p' THEN 'in_production' ELSE 'accepted' END,
         'Bench Buyer', $3::jsonb, min(s.placed), lower(s.ord || E'\\nbench buyer')
  FROM spec s GROUP BY s.ord
  RETURNING id, external_id
), items AS (
  INSERT INTO order_item (order_id, external_item_id, sku, title, quantity)
  SELECT o.id, s.ord || '-' || s.line, 'SKU-' || s.ord || '-' || s.line, s.part, 1
  FROM spec s JOIN orders o ON o.external_id = s.ord
  RETURNING id, order_id, external_item_id
)
INSERT INTO print_job (order_id, order_item_id, owner_id, part_index, copy, part_name, design_id,
                       print_config_id, model_key, material, colour, nozzle_mm, size_x_mm, size_y_mm,
                       size_z_mm, grams, print_seconds, file_key, file_kind, status, printer_id, rush,
                       placed_at, due_at, assigned_at, started_at, finished_at, progress, qc_by)
SELECT i.order_id, i.id, $2, 0, 1, s.part, $4::uuid, $5::uuid, 'bench/model.stl', s.material, s.colour,
       s.nozzle, s.sx, s.sy, s.sz, s.grams, s.secs, 'simulation', 'simulation',
       CASE s.cls WHEN 'h' THEN 'qc_passed' WHEN 'p' THEN 'printing' ELSE 'queued' END,
       s.printer, s.rush, s.placed, s.due,
       CASE WHEN s.cls <> 'q' THEN s.placed + interval '1 day' END,
       CASE WHEN s.cls <> 'q' THEN s.placed + interval '1 day' END,
       CASE WHEN s.cls = 'h' THEN s.placed + interval '1 day' + make_interval(secs => s.secs) END,
       CASE s.cls WHEN 'h' THEN 1 WHEN 'p' THEN 0.4 END,
       CASE WHEN s.cls = 'h' THEN 'bench' END
FROM spec s JOIN items i ON i.external_item_id = s.ord || '-' || s.line
ORDER BY s.placed, s.ord, s.line`;

async function measurePostgres(quotes: ModelQuote[], rand: () => number) {
  const setupStarted = performance.now();
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  try {
    scratch = await createScratchDatabase(DATABASE_URL);
  } catch (error) {
    throw new Error(`PostgreSQL at ${DATABASE_URL} is needed for the dispatch decision time (DATABASE_URL)`, {
      cause: error,
    });
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-farm-bench-'));
  let running: Running | undefined;
  const sql = new pg.Client({ connectionString: scratch.url });
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      DATABASE_URL: scratch.url,
      SLICING: 'off',
      FARM_AUTOPILOT: 'false',
      SEED_DEMO_DATA: 'false',
      MODEL_WORKERS: '1',
    });
    running = await bootstrap(config, { error: () => undefined }, { workJobs: false });
    const { printerRepository, printJobs } = running.context;
    await sql.connect();

    // 300 simulated printers of the day's mix, through the repository (connections sealed as in production).
    const farm = makeFarm(PG_PRINTERS, rand);
    const circuits = new Map<string, string>();
    for (const p of farm) {
      if (circuits.has(p.group!.id)) continue;
      const made = await printerRepository.groups.create({ name: p.group!.id, maxStarts: p.group!.maxStarts, perSeconds: p.group!.perSeconds });
      circuits.set(p.group!.id, made!.id);
    }
    const rows = [];
    for (const p of farm) {
      const spools: PrinterSpool[] = [
        {
          material: p.loaded!.material as PrinterSpool['material'],
          colourName: p.loaded!.colour,
          colourHex: HEX[p.loaded!.colour]!,
          gramsLeft: 1000,
          loaded: true,
        },
      ];
      rows.push(
        await printerRepository.create(
          {
            name: p.id,
            model: p.model,
            buildVolumeMm: p.bed,
            nozzleMm: p.nozzleMm,
            tags: [],
            materials: p.materials ? (p.materials as PrinterSpool['material'][]) : [...SPOOL_MATERIALS],
            enclosed: p.enclosed,
            groupId: circuits.get(p.group!.id)!,
            slicerProfile: null,
            connection: printerConnectionSchema.parse({ kind: 'simulated', model: p.model }),
          },
          spools,
        ),
      );
    }
    const idlePool = rows.slice(0, PG_IDLE_POOL).map((r) => r.id);
    const busy = rows.slice(PG_IDLE_POOL).map((r) => r.id);
    for (const id of idlePool) await printerRepository.recordState(id, { status: printerStatus('idle') });
    for (const id of busy) await printerRepository.recordState(id, { status: printerStatus('printing') });

    // One seller; orders accepted (queued jobs), in production (a job printing on each busy printer), shipped (history).
    const seller = 'bench-seller';
    await sql.query(
      `INSERT INTO "user" (id, name, email, role, business_name) VALUES ($1, 'Bench Seller', 'bench-seller@bench.layerline.test', 'seller', 'Bench Prints')`,
      [seller],
    );
    const nowMs = Date.now();
    const printing = jobSpecs(quotes, rand, 'p', busy.length, nowMs - 3 * 24 * 3600_000);
    printing.forEach((spec, i) => (spec.printer = busy[i]!));
    const address = {
      name: 'Bench Buyer',
      company: '',
      line1: '1 Bench Street',
      line2: '',
      city: 'Testville',
      region: '',
      postalCode: '10115',
      country: 'DE',
      phone: '',
      email: '',
    };
    const batches = [
      jobSpecs(quotes, rand, 'h', HISTORY, nowMs - 10 * 24 * 3600_000),
      printing,
      jobSpecs(quotes, rand, 'q', PG_QUEUED, nowMs),
    ];
    for (const specs of batches)
      if (specs.length > 0)
        await sql.query(INSERT_JOBS, [
          JSON.stringify(specs),
          seller,
          JSON.stringify(address),
          crypto.randomUUID(),
          crypto.randomUUID(),
        ]);
    const lastStart = `UPDATE printer SET last_started_at = now() - interval '1 hour' - random() * interval '6 hours'`;
    await sql.query(lastStart);
    await sql.query('ANALYZE');
    const counts = (
      await sql.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM print_job GROUP BY status`,
      )
    ).rows;
    const queuedCount = () =>
      sql
        .query<{ n: number }>(`SELECT count(*)::int AS n FROM print_job WHERE status = 'queued'`)
        .then((r) => r.rows[0]!.n);
    if ((await queuedCount()) !== PG_QUEUED) throw new Error('the queue was not made');
    const setupMs = performance.now() - setupStarted;

    // Each decision: 10-20 of the idle pool have a clear bed; the rest of the pool waits for its bed to be cleared.
    const setReady = async () => {
      const ready = new Set<string>();
      const count = 10 + Math.floor(rand() * (PG_IDLE_POOL - 10 + 1));
      while (ready.size < count) ready.add(idlePool[Math.floor(rand() * idlePool.length)]!);
      for (const id of idlePool) await printJobs.setBedClear(id, ready.has(id), null);
      return ready.size;
    };
    // The dispatcher as the farm's tick runs it, on a clock that moves one tick (FARM_TICK_S, 2 s) per
    // decision, so its kept queue reads the whole queue once a minute (every 30th decision) and only the
    // changes in between, as in production. The assignments and the put-back write that clock's time.
    let clock = Date.now();
    const dispatcher = createFarmDispatcher({
      jobs: printJobs,
      printers: printerRepository,
      drivers: () => {
        throw new Error('the bench makes decisions only');
      },
      storage: running.context.storage,
      files: {
        settingsVersion: async () => {
          throw new Error('the bench makes decisions only');
        },
        requestSlicing: async () => {
          throw new Error('the bench makes decisions only');
        },
        requestPlateSlicing: async () => {
          throw new Error('the bench makes decisions only');
        },
      },
      outcomes: createJobOutcomes({ jobs: printJobs, orders: { find: async () => undefined, tryTransition: async () => false } }),
      options: { autopilot: { enabled: false, delayMs: 0 }, now: () => clock },
    });
    const putBackAt = async (assigned: readonly string[]) => {
      await sql.query(
        `UPDATE print_job SET status = 'queued', printer_id = NULL, spool_change = NULL, assigned_at = NULL, updated_at = $2 WHERE id = ANY($1::uuid[]) AND status = 'assigned'`,
        [assigned, new Date(clock)],
      );
      await sql.query(`UPDATE printer SET last_started_at = $2::timestamptz - interval '1 hour' WHERE id = ANY($1::uuid[])`, [idlePool, new Date(clock)]);
    };

    const times: number[] = [];
    const fullReadTimes: number[] = [];
    const assignedCounts: number[] = [];
    const readyCounts: number[] = [];
    for (let d = 0; d < PG_WARMUP + PG_DECISIONS; d++) {
      clock += TICK_MS;
      const ready = await setReady();
      const fullRead = d % (60_000 / TICK_MS) === 0;
      const t0 = performance.now();
      const { assigned } = await dispatcher.dispatchOnce();
      const ms = performance.now() - t0;
      if (assigned.length === 0) throw new Error(`decision ${d}: nothing assigned with ${ready} printers ready`);
      if (d >= PG_WARMUP) {
        times.push(ms);
        if (fullRead) fullReadTimes.push(ms);
        assignedCounts.push(assigned.length);
        readyCounts.push(ready);
      }
      await putBackAt(assigned);
    }
    if ((await queuedCount()) !== PG_QUEUED) throw new Error('the queue drifted');

    // Where the time goes: each read of a decision on its own (p50 of 20).
    const partMs = async (work: () => Promise<unknown>) => {
      const t: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        await work();
        t.push(performance.now() - t0);
      }
      return percentile(t, 50);
    };
    const fullQueueReadMs = await partMs(() => printJobs.queueEntries(null));
    const changesReadMs = await partMs(() => printJobs.queueEntries(new Date(clock - 2 * TICK_MS - 10_000)));
    const printersReadMs = await partMs(() => printerRepository.list());
    const busyReadMs = await partMs(() => printJobs.busyPrinters());
    const tableBytes = (
      await sql.query<{ b: string }>(`SELECT pg_total_relation_size('print_job')::text AS b`)
    ).rows[0]!.b;
    return {
      setupMs,
      counts,
      tableMb: Number(tableBytes) / 1e6,
      times,
      fullReadTimes,
      meanAssigned: assignedCounts.reduce((s, a) => s + a, 0) / assignedCounts.length,
      meanReady: readyCounts.reduce((s, a) => s + a, 0) / readyCounts.length,
      fullQueueReadMs,
      changesReadMs,
      printersReadMs,
      busyReadMs,
    };
  } finally {
    await sql.end().catch(() => undefined);
    await running?.close().catch(() => undefined);
    await scratch.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/* ---------------------------------------------------------------- run */

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const fmt = (n: number, digits = 2) => n.toFixed(digits);

const quotes = readQuotes();
const rand = mulberry32(SEED);
const farm = makeFarm(40, rand);
const items = makeDay(quotes, rand);
const totalPrintH = items.reduce((s, i) => s + i.printSeconds, 0) / 3600;
log(
  `farm day, seed ${SEED}: ${farm.length} printers (${[...new Set(farm.map((p) => p.model))].map((m) => `${farm.filter((p) => p.model === m).length} ${m}`).join(', ')}), ${FILAMENT_TYPES.length} materials, ${COLOURS.length} colours`,
);
log(
  `  ${items.length} order items from ${quotes.length} slicer quotes of ${MODELS}/REFERENCE.tsv (PrusaSlicer bounding box and print time), ${fmt(totalPrintH, 0)} printer-hours of printing, arriving over ${ARRIVALS_OVER_S / 3600} h`,
);
log(
  `  ${FAIL_RATE * 100} % failed prints (2/3 during the print, 1/3 at QC), reprinted up to the lifecycle's limit; spool change ${SPOOL_CHANGE_S / 60} min (counted as a colour change), bed clearing ${BED_CLEAR_S / 60} min, QC ${QC_DELAY_S / 60} min; at most ${CIRCUIT.maxStarts} starts per ${CIRCUIT.perSeconds} s per power circuit of ${CIRCUIT.printers} printers, both runs`,
);

const wallStarted = performance.now();
const planned = simulate(items, farm, (f) => new PlannerDispatcher(f));
const fifo = simulate(items, farm, (f) => new FifoDispatcher(f));
const simMs = performance.now() - wallStarted;
for (const r of [planned, fifo]) {
  log(
    `  ${r.dispatcher.padEnd(8)} makespan ${fmt(r.makespanHours, 1)} h, utilisation ${fmt(r.utilisation, 3)}, colour changes ${r.colourChanges}, ` +
      `${r.jobs} jobs (${r.reprints} reprints, ${r.heldOrders} held), ${r.decisions} decisions`,
  );
}
const inSim = (planned.dispatcherRef as PlannerDispatcher).decisionMs;
log(
  `  both days simulated in ${fmt(simMs / 1000, 1)} s of wall time; planner decisions during the day (queue ≤ ${items.length}): p95 ${fmt(percentile(inSim, 95), 3)} ms, max ${fmt(Math.max(...inSim), 3)} ms`,
);

const m = measureDecisions(quotes, rand);
const p95 = percentile(m.times, 95);
log(
  `decision time, pure planner in-process (no database): 10,000 queued jobs, 300 printers, ${m.decisions} decisions after ${m.warmup} warm-up, ` +
    `${fmt(m.meanAssigned, 1)} assignments each on average; index built in ${fmt(m.buildMs, 1)} ms`,
);
log(
  `  p50 ${fmt(percentile(m.times, 50), 3)} ms, p95 ${fmt(p95, 3)} ms, max ${fmt(Math.max(...m.times), 3)} ms`,
);
const worst = measureWorstCase();
log(
  `  worst case (10,000 jobs in one group, all 300 printers ready, the parts too big for a third of them): p95 ${fmt(percentile(worst, 95), 3)} ms over ${worst.length} decisions`,
);

const small = smallQuotes(quotes);
const smallDay = makeSmallPartsDay(small, mulberry32(SEED + 3));
const onPlates = simulatePlates(smallDay, farm, PARTS_PER_PLATE);
const onePerPlate = simulatePlates(smallDay, farm, 1);
const plateDecisions = measureDecisions(quotes, mulberry32(SEED + 4), PARTS_PER_PLATE);
const plateP95 = percentile(plateDecisions.times, 95);
log(
  `small parts, several per plate (issue 22): ${smallDay.length} parts from the ${small.length} quotes of at most 60 × 60 × 60 mm and 40 min, 1-4 copies a line, two print settings, on the same ${farm.length} printers; ` +
    `a plate's fixed cost ${PLATE_HEAT_UP_S / 60} min heat-up and levelling (assumed: the shared printer notes give no duration) + ${BED_CLEAR_S / 60} min bed clearing`,
);
for (const [name, r] of [
  [`plates (≤ ${PARTS_PER_PLATE})`, onPlates],
  ['one per plate', onePerPlate],
] as const) {
  log(
    `  ${name.padEnd(14)} ${r.plates} plates (${fmt(r.partsPerPlate, 1)} parts each), ${fmt(r.printerHoursPerPart, 3)} printer-hours per part, utilisation ${fmt(r.utilisation, 3)}, ` +
      `makespan ${fmt(r.makespanHours, 1)} h, ${r.reprints} reprints, ${r.latePromises} parts of a shared plate past their promise`,
  );
}
log(
  `  planner with plates, 10,000 queued and 300 printers (pure, in-process): p50 ${fmt(percentile(plateDecisions.times, 50), 3)} ms, p95 ${fmt(plateP95, 3)} ms, ` +
    `${fmt(plateDecisions.meanAssigned, 1)} plates each; during the day p95 ${fmt(percentile(onPlates.decisionMs, 95), 3)} ms`,
);
const hoursRatio = onPlates.printerHoursPerPart / onePerPlate.printerHoursPerPart;

const db = await measurePostgres(quotes, mulberry32(SEED + 2));
const pgP95 = percentile(db.times, 95);
log(
  `decision time on PostgreSQL: the farm dispatcher's dispatchOnce() (printers and queue read, planner, compare-and-set writes) on a scratch database at ${new URL(DATABASE_URL).host}`,
);
log(
  `  ${PG_PRINTERS} simulated printers (${PG_PRINTERS - PG_IDLE_POOL} printing a job, ${fmt(db.meanReady, 1)} of the other ${PG_IDLE_POOL} ready on average), print_job: ${db.counts
    .map((c) => `${c.n} ${c.status}`)
    .join(', ')} (${fmt(db.tableMb, 1)} MB with indexes); set up in ${fmt(db.setupMs / 1000, 1)} s`,
);
log(
  `  ${db.times.length} decisions after ${PG_WARMUP} warm-up, one tick (${TICK_MS / 1000} s) apart on the dispatcher's clock, ${fmt(db.meanAssigned, 1)} assignments each (each circuit of ${CIRCUIT.printers} printers allows ${CIRCUIT.maxStarts} starts per ${CIRCUIT.perSeconds} s); the assigned jobs go back to the queue after each`,
);
log(
  `  p50 ${fmt(percentile(db.times, 50), 1)} ms, p95 ${fmt(pgP95, 1)} ms, p99 ${fmt(percentile(db.times, 99), 1)} ms, max ${fmt(Math.max(...db.times), 1)} ms; ` +
    `the decisions that read the whole queue (one a minute): ${db.fullReadTimes.map((t) => fmt(t, 0)).join(', ')} ms`,
);
log(
  `  the reads alone (p50 of 20): the whole queue (${PG_QUEUED} jobs, the planner's columns) ${fmt(db.fullQueueReadMs, 1)} ms, ` +
    `the jobs changed since the last decision ${fmt(db.changesReadMs, 1)} ms, printers ${fmt(db.printersReadMs, 1)} ms, printers holding a job ${fmt(db.busyReadMs, 1)} ms`,
);

const ratio = planned.colourChanges / Math.max(1, fifo.colourChanges);
log('targets:');
log(
  `  utilisation of printer-hours while work waits ≥ ${TARGETS.utilisation}: ${fmt(planned.utilisation, 3)} ${verdict(planned.utilisation >= TARGETS.utilisation)}`,
);
log(
  `  colour changes ≤ ${TARGETS.colourChangeRatio} × FIFO: ${planned.colourChanges} vs ${fifo.colourChanges} (${fmt(ratio, 3)}×) ${verdict(ratio <= TARGETS.colourChangeRatio)}`,
);
log(
  `  makespan ≤ FIFO: ${fmt(planned.makespanHours, 2)} h vs ${fmt(fifo.makespanHours, 2)} h ${verdict(planned.makespanHours <= fifo.makespanHours)}`,
);
log(
  `  dispatch decision p95 ≤ ${TARGETS.dispatchP95Ms} ms with 10,000 queued on PostgreSQL (dispatchOnce: reads, planner, writes): ${fmt(pgP95, 1)} ms ${verdict(pgP95 <= TARGETS.dispatchP95Ms)}`,
);
log(`  (the pure planner alone, no database: p95 ${fmt(p95, 3)} ms)`);
log(
  `  plates: printer-hours per small part ≤ ${PLATE_TARGETS.hoursRatio} × one per plate: ${fmt(onPlates.printerHoursPerPart, 3)} vs ${fmt(onePerPlate.printerHoursPerPart, 3)} (${fmt(hoursRatio, 3)}×) ${verdict(hoursRatio <= PLATE_TARGETS.hoursRatio)}`,
);
log(
  `  plates: utilisation ≥ ${PLATE_TARGETS.utilisation}: ${fmt(onPlates.utilisation, 3)} ${verdict(onPlates.utilisation >= PLATE_TARGETS.utilisation)}; ` +
    `parts late for a fuller plate = ${PLATE_TARGETS.latePromises}: ${onPlates.latePromises} ${verdict(onPlates.latePromises === PLATE_TARGETS.latePromises)}; ` +
    `decision p95 ≤ ${TARGETS.dispatchP95Ms} ms (pure planner with plates): ${fmt(plateP95, 1)} ms ${verdict(plateP95 <= TARGETS.dispatchP95Ms)}`,
);
log(
  JSON.stringify({
    printers: farm.length,
    jobs: planned.jobs,
    makespanHours: Number(fmt(planned.makespanHours, 2)),
    utilisation: Number(fmt(planned.utilisation, 3)),
    colourChanges: planned.colourChanges,
    fifoColourChanges: fifo.colourChanges,
    fifoMakespanHours: Number(fmt(fifo.makespanHours, 2)),
    dispatchP95Ms: Number(fmt(pgP95, 1)),
    printerHoursPerPart: Number(fmt(onPlates.printerHoursPerPart, 3)),
    onePerPlatePrinterHoursPerPart: Number(fmt(onePerPlate.printerHoursPerPart, 3)),
    plateUtilisation: Number(fmt(onPlates.utilisation, 3)),
    partsPerPlate: Number(fmt(onPlates.partsPerPlate, 2)),
    plateDispatchP95Ms: Number(fmt(plateP95, 1)),
    latePromises: onPlates.latePromises,
  }),
);
