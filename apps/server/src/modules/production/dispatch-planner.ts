import { FILAMENT_TYPES, MATERIALS_NEEDING_ENCLOSURE } from '@layerline/contracts';
import { packPlate, type Placement } from './plate-packer.ts';

/**
 * The dispatch planner (docs/print-farm.md): pure code, no I/O, no clock. Given the farm's printers
 * and the queue of jobs, one decision says which job goes on which ready printer, and which of them
 * need a spool change first. The caller (the dispatcher on the job queue) writes the decision with
 * compare-and-set and removes the assigned jobs from its `DispatchQueue`.
 *
 * Rules, in order:
 *  1. A job goes only on a printer where everything matches: nozzle, material (one the printer is
 *     allowed, in an enclosure for ABS, ASA and Nylon; colour, or any colour for a job marked "any"),
 *     bed (the part's box plus margins, as laid or turned 90° about Z), and the printer online, idle,
 *     its bed confirmed clear and not flagged for a person. A pinned job goes only on its printer.
 *     The loaded spool must hold the job's grams plus a margin (`gramsNeeded`), else the job asks for
 *     a fresh spool of the same material and colour.
 *  2. Pinned jobs first on their printer (a person chose that), by priority.
 *  3. Overdue work (past its virtual deadline, see `priorityKey`) that no printer of the farm has a
 *     spool for gets one ready printer switched to it, so a small colour never starves behind big ones.
 *  4. Then every ready printer takes the highest-priority job its loaded spool can print, highest
 *     priority across the farm first (grouping by colour and material: no changeover while there is
 *     work for the loaded spool).
 *  5. A ready printer with nothing for its spool changes to the spool that serves the most waiting
 *     print time, shared by the printers already loaded with it.
 *  6. Staggered starts: within each power group (a circuit), at most `maxStarts` starts in any
 *     `perSeconds`, counting the group's printers' last starts; a printer in no group is not staggered.
 *  7. Plates (issue 22, when `partsPerPlate` > 1): each assigned job leads a plate, and queued jobs
 *     its spool prints with the same print settings (`plateKey`) join it in priority order while they
 *     all fit the bed (plate-packer.ts) and the plate, printed from now, still ends `plateSlackMs`
 *     before the virtual deadline of every part that could still make it printed alone. Parts already
 *     late join only a late lead. Nothing ever waits for a plate to fill: a plate goes out with
 *     whatever is queued now, and a part whose deadline a longer plate would miss prints alone.
 */

/** A job that prints in any colour of its material (single-colour parts the seller marked "any"). */
export const ANY_COLOUR = 'any';

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

export interface Spool {
  readonly material: string;
  readonly colour: string;
}

/** A spool in a toolhead: what it holds, and how much (absent: not tracked, never short). */
export interface LoadedSpool extends Spool {
  readonly gramsLeft?: number;
}

/** Printers on one power circuit: at most `maxStarts` of them start within any `perSeconds`. */
export interface PowerGroup {
  readonly id: string;
  readonly maxStarts: number;
  readonly perSeconds: number;
}

/**
 * What a spool must hold to take a job: its grams plus 10 % and 5 g (the estimate is a slicer's,
 * the purge line and a first-layer retry cost some), so a print never runs out near its end.
 */
export const SPOOL_MARGIN = { percent: 10, grams: 5 } as const;
export const gramsNeeded = (jobGrams: number): number =>
  Math.ceil((jobGrams * (100 + SPOOL_MARGIN.percent)) / 100 + SPOOL_MARGIN.grams);

/** Whether a material may only go to an enclosed printer (ABS, ASA, Nylon). */
export const needsEnclosure = (material: string): boolean =>
  (MATERIALS_NEEDING_ENCLOSURE as readonly string[]).includes(material);

export interface PlannerPrinter {
  readonly id: string;
  readonly name?: string;
  /** Build volume in mm. */
  readonly bed: Box;
  readonly nozzleMm: number;
  /** The spool loaded now, or null when none is. */
  readonly loaded: LoadedSpool | null;
  /** Materials this printer may print (a direct drive for TPU, say); absent: all. */
  readonly materials?: readonly string[];
  /** It has an enclosure: the only kind of printer that takes ABS, ASA and Nylon. */
  readonly enclosed: boolean;
  /** The farm asked a person to look at it: no job goes to it until cleared (it still counts for `unplaceable`). */
  readonly flagged?: boolean;
  /** Its power circuit; null or absent: on its own, never staggered. */
  readonly group?: PowerGroup | null;
  readonly online: boolean;
  readonly idle: boolean;
  /** A person (or a bed-clearing system) confirmed the bed is clear since the last print. */
  readonly bedClear: boolean;
  /** Paused or retired by an admin: never dispatched to (a paused printer still counts for `unplaceable`). */
  readonly paused?: boolean;
  readonly retired?: boolean;
  /** When the printer last started a print (ms), for staggered starts. */
  readonly lastStartAt: number | null;
}

export interface PlannerJob {
  readonly id: string;
  /** The part's bounding box as it will be printed (mm). */
  readonly size: Box;
  readonly material: string;
  /** A colour name, or ANY_COLOUR. */
  readonly colour: string;
  readonly nozzleMm: number;
  /** Estimated print time (s): weighs the waiting work when choosing a spool. */
  readonly printSeconds: number;
  /** Filament it uses (g), from the slicer's estimate; absent: not known, any spool of its colour holds it. */
  readonly grams?: number;
  /** Priority inputs. */
  readonly orderPlacedAt: number;
  readonly dueAt: number | null;
  /** The seller's priority: 0 normal; each level moves the job ahead by `sellerPriorityStepMs`. */
  readonly sellerPriority: number;
  readonly rush: boolean;
  readonly pinnedPrinterId: string | null;
  /** A person's place for it in the queue (a priority key, set by dragging on the board): wins over the rules. */
  readonly priorityOverride?: number | null;
  /** A tie-breaker that keeps first-in-first-out among equals (the queue's insertion order if absent). */
  readonly seq?: number;
  /**
   * The print settings it is sliced with (layer height, infill, walls…): only jobs with the same key
   * share a plate, as one slicer run prints them all alike. Absent or null: it always prints alone.
   */
  readonly plateKey?: string | null;
}

export interface PlannerOptions {
  /** Clearance kept free around a part on each side of the bed (x and y), mm. */
  readonly bedMarginMm: number;
  /** Clearance kept above a part (z), mm. */
  readonly heightMarginMm: number;
  /** An order's promised lead time when it has no due date: its virtual deadline is placed + this. */
  readonly standardLeadTimeMs: number;
  /** How far ahead a rush order moves. */
  readonly rushAdvanceMs: number;
  /** How far ahead each level of seller priority moves a job. */
  readonly sellerPriorityStepMs: number;
  /** The materials Layerline knows (a job in another is unplaceable). */
  readonly knownMaterials: readonly string[];
  /** At most this many parts on one plate; 1 prints every part alone (one part per plate). */
  readonly partsPerPlate: number;
  /** Clearance between two parts on a plate, mm (room to skip or lift one off without its neighbours). */
  readonly plateGapMm: number;
  /** What a plate keeps in hand before a part's deadline (spool change, heat-up, a slow estimate), ms. */
  readonly plateSlackMs: number;
  /** How many queued jobs per group a plate looks at for companions (bounds a decision's time). */
  readonly plateScanLimit: number;
}

const HOUR = 3_600_000;
export const DEFAULT_PLANNER_OPTIONS: PlannerOptions = {
  bedMarginMm: 5,
  heightMarginMm: 2,
  standardLeadTimeMs: 72 * HOUR,
  rushAdvanceMs: 48 * HOUR,
  sellerPriorityStepMs: 12 * HOUR,
  knownMaterials: FILAMENT_TYPES,
  partsPerPlate: 1,
  plateGapMm: 10,
  plateSlackMs: HOUR,
  plateScanLimit: 64,
};

export interface Assignment {
  readonly jobId: string;
  readonly printerId: string;
  /**
   * The spool to load before printing, or null when the loaded one prints the job. Its colour is
   * ANY_COLOUR only for an "any colour" job when no colour of that material is waiting and the
   * printer has no spool: the operator loads whichever spool of the material is at hand.
   */
  readonly spoolChange: Spool | null;
  /**
   * Why this job went here (for the board and the log). `fresh-spool`: the loaded spool is the
   * job's material and colour but holds too little, so a fresh one of the same is asked for.
   */
  readonly rule: 'pinned' | 'loaded-spool' | 'overdue' | 'spool-change' | 'fresh-spool';
  /**
   * When other jobs share the plate (rule 7): every part on it, this job first, with where it goes
   * on the bed. The others go to the same printer and print with this one. Absent: it prints alone.
   */
  readonly plate?: readonly PlatePart[];
}

/** A part on a plate of several: the job and its place on the bed. */
export interface PlatePart extends Placement {
  /** The job's id (Placement.id). */
  readonly id: string;
}

export interface DispatchDecision {
  readonly assignments: readonly Assignment[];
  /** Starts each power group (by id) still allows now, after these assignments. */
  readonly startsLeft: ReadonlyMap<string, number>;
  /** When a group's stagger next allows a start, if it held a ready printer back (ms), else null. */
  readonly nextStartAt: number | null;
}

/* ---------------------------------------------------------------- matching */

const NOZZLE_EPSILON = 1e-6;
const sameNozzle = (a: number, b: number) => Math.abs(a - b) < NOZZLE_EPSILON;
const nozzleKey = (mm: number) => (Math.round(mm * 1000) / 1000).toString();

/** The usable bed (build volume less the margins). */
export function usableBed(
  bed: Box,
  options: Pick<PlannerOptions, 'bedMarginMm' | 'heightMarginMm'> = DEFAULT_PLANNER_OPTIONS,
): Box {
  return {
    x: Math.max(0, bed.x - 2 * options.bedMarginMm),
    y: Math.max(0, bed.y - 2 * options.bedMarginMm),
    z: Math.max(0, bed.z - options.heightMarginMm),
  };
}

/**
 * Whether a part fits a bed with the margins, as laid or turned 90° about Z. It is never laid on
 * another face: the seller's orientation decides strength, surface and supports, and the sliced
 * file is made for it.
 */
export function fitsBed(
  size: Box,
  bed: Box,
  options: Pick<PlannerOptions, 'bedMarginMm' | 'heightMarginMm'> = DEFAULT_PLANNER_OPTIONS,
): boolean {
  const usable = usableBed(bed, options);
  if (size.z > usable.z) return false;
  return (size.x <= usable.x && size.y <= usable.y) || (size.y <= usable.x && size.x <= usable.y);
}

const allowsMaterial = (printer: PlannerPrinter, material: string) =>
  !printer.materials || printer.materials.includes(material);
/** Allowed on it, and enclosed when the material needs it. */
const printsMaterial = (printer: PlannerPrinter, material: string) =>
  allowsMaterial(printer, material) && (printer.enclosed || !needsEnclosure(material));

/** The things a spool change cannot fix: nozzle, bed, the materials the printer may print (and its enclosure). */
function fitsPrinter(job: PlannerJob, printer: PlannerPrinter, options: PlannerOptions): boolean {
  return (
    sameNozzle(job.nozzleMm, printer.nozzleMm) &&
    printsMaterial(printer, job.material) &&
    fitsBed(job.size, printer.bed, options)
  );
}

const spoolServes = (spool: Spool | null, job: PlannerJob) =>
  spool !== null &&
  spool.material === job.material &&
  (job.colour === ANY_COLOUR || job.colour === spool.colour);

/** The spool holds enough for the job (when both are known). */
const spoolHolds = (spool: LoadedSpool, job: PlannerJob) =>
  spool.gramsLeft === undefined || job.grams === undefined || spool.gramsLeft >= gramsNeeded(job.grams);

/** Everything matches: the job can start on this printer now, with the spool it has. */
export function canRunOn(
  job: PlannerJob,
  printer: PlannerPrinter,
  options: PlannerOptions = DEFAULT_PLANNER_OPTIONS,
): boolean {
  return (
    isReady(printer) &&
    (job.pinnedPrinterId === null || job.pinnedPrinterId === printer.id) &&
    spoolServes(printer.loaded, job) &&
    spoolHolds(printer.loaded!, job) &&
    fitsPrinter(job, printer, options)
  );
}

/** Online, idle, bed confirmed clear, not flagged for a person, neither paused nor retired. */
export function isReady(printer: PlannerPrinter): boolean {
  return (
    printer.online && printer.idle && printer.bedClear && !printer.flagged && !printer.paused && !printer.retired
  );
}

/**
 * A job's virtual deadline (ms): its due date or its placed time plus the standard lead time,
 * whichever is sooner, moved ahead for rush and seller priority. Lower is more urgent. It does not
 * depend on the clock, so the queue's order never needs recomputing.
 */
export function priorityKey(job: PlannerJob, options: PlannerOptions = DEFAULT_PLANNER_OPTIONS): number {
  if (job.priorityOverride !== undefined && job.priorityOverride !== null) return job.priorityOverride;
  const promised = job.orderPlacedAt + options.standardLeadTimeMs;
  const deadline = job.dueAt === null ? promised : Math.min(job.dueAt, promised);
  return (
    deadline -
    (job.rush ? options.rushAdvanceMs : 0) -
    Math.max(0, job.sellerPriority) * options.sellerPriorityStepMs
  );
}

/** When the job's order was promised: its due date or placed + the standard lead time, whichever is sooner. */
export function promisedBy(job: PlannerJob, options: PlannerOptions = DEFAULT_PLANNER_OPTIONS): number {
  const promised = job.orderPlacedAt + options.standardLeadTimeMs;
  return job.dueAt === null ? promised : Math.min(job.dueAt, promised);
}

/* ---------------------------------------------------------------- the queue index */

interface Entry {
  readonly job: PlannerJob;
  readonly key: number;
  readonly seq: number;
  live: boolean;
}

interface Bucket {
  readonly material: string;
  readonly colour: string;
  readonly nozzleMm: number;
  /** Sorted by (key, seq); removed entries are skipped and compacted away from the head. */
  entries: Entry[];
  head: number;
  count: number;
  seconds: number;
}

const before = (a: Entry, b: Entry) => a.key < b.key || (a.key === b.key && a.seq < b.seq);

function insertSorted(list: Entry[], entry: Entry, from: number): void {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid]!, entry)) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, entry);
}

/**
 * The queued jobs, indexed by (material, colour, nozzle) with each group in priority order, and
 * pinned jobs by printer: a decision looks only at the groups a printer can use, never the whole
 * queue. Kept by the dispatcher between decisions (add on enqueue, remove on assignment).
 */
export class DispatchQueue {
  private readonly buckets = new Map<string, Bucket>();
  private readonly pinned = new Map<string, Entry[]>();
  private readonly entries = new Map<string, Entry>();
  private nextSeq = 0;
  readonly options: PlannerOptions;

  constructor(jobs: Iterable<PlannerJob> = [], options: Partial<PlannerOptions> = {}) {
    this.options = { ...DEFAULT_PLANNER_OPTIONS, ...options };
    for (const job of jobs) this.add(job);
  }

  get size(): number {
    return this.entries.size;
  }

  has(jobId: string): boolean {
    return this.entries.has(jobId);
  }

  get(jobId: string): PlannerJob | undefined {
    return this.entries.get(jobId)?.job;
  }

  jobs(): IterableIterator<PlannerJob> {
    return Array.from(this.entries.values(), (e) => e.job)[Symbol.iterator]();
  }

  add(job: PlannerJob): void {
    if (this.entries.has(job.id)) throw new Error(`Job ${job.id} is already queued`);
    const seq = job.seq ?? this.nextSeq;
    this.nextSeq = Math.max(this.nextSeq, seq) + 1;
    const entry: Entry = { job, key: priorityKey(job, this.options), seq, live: true };
    this.entries.set(job.id, entry);
    if (job.pinnedPrinterId !== null) {
      const list = this.pinned.get(job.pinnedPrinterId) ?? [];
      this.pinned.set(job.pinnedPrinterId, list);
      insertSorted(list, entry, 0);
      return;
    }
    const id = bucketId(job.material, job.colour, job.nozzleMm);
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = {
        material: job.material,
        colour: job.colour,
        nozzleMm: job.nozzleMm,
        entries: [],
        head: 0,
        count: 0,
        seconds: 0,
      };
      this.buckets.set(id, bucket);
    }
    insertSorted(bucket.entries, entry, bucket.head);
    bucket.count += 1;
    bucket.seconds += job.printSeconds;
  }

  remove(jobId: string): boolean {
    const entry = this.entries.get(jobId);
    if (!entry) return false;
    this.entries.delete(jobId);
    entry.live = false;
    const job = entry.job;
    if (job.pinnedPrinterId !== null) {
      const list = this.pinned.get(job.pinnedPrinterId)!;
      list.splice(list.indexOf(entry), 1);
      if (list.length === 0) this.pinned.delete(job.pinnedPrinterId);
      return true;
    }
    const id = bucketId(job.material, job.colour, job.nozzleMm);
    const bucket = this.buckets.get(id)!;
    bucket.count -= 1;
    bucket.seconds -= job.printSeconds;
    if (bucket.count === 0) {
      this.buckets.delete(id);
      return true;
    }
    while (bucket.head < bucket.entries.length && !bucket.entries[bucket.head]!.live) bucket.head++;
    // Compact when the dead outnumber the living, so scans and inserts stay proportional to the queue.
    if (bucket.entries.length > 32 && bucket.entries.length > 2 * bucket.count) {
      bucket.entries = bucket.entries.filter((e) => e.live);
      bucket.head = 0;
    }
    return true;
  }

  /** @internal for the planner */
  bucketsFor(nozzleMm: number): Bucket[] {
    const out: Bucket[] = [];
    for (const bucket of this.buckets.values()) if (sameNozzle(bucket.nozzleMm, nozzleMm)) out.push(bucket);
    return out;
  }

  /** @internal for the planner */
  bucket(material: string, colour: string, nozzleMm: number): Bucket | undefined {
    return this.buckets.get(bucketId(material, colour, nozzleMm));
  }

  /** @internal for the planner */
  entry(jobId: string): Entry | undefined {
    return this.entries.get(jobId);
  }

  /** @internal for the planner */
  pinnedTo(printerId: string): readonly Entry[] {
    return this.pinned.get(printerId) ?? [];
  }
}

const bucketId = (material: string, colour: string, nozzleMm: number) =>
  `${material}\u0000${colour}\u0000${nozzleKey(nozzleMm)}`;

/* ---------------------------------------------------------------- one decision */

/**
 * One dispatch decision at `now` (ms). Pure: reads the printers and the queue, changes neither.
 * `printers` is the whole farm (busy ones count for the stagger and for which spools are loaded).
 */
export function planDispatch(
  printers: readonly PlannerPrinter[],
  queue: DispatchQueue,
  now: number,
): DispatchDecision {
  const options = queue.options;
  const stagger = groupStagger(printers, now);
  const ready = printers
    .filter(isReady)
    .sort((a, b) => (a.lastStartAt ?? -Infinity) - (b.lastStartAt ?? -Infinity) || cmp(a.id, b.id));
  const assignments: Assignment[] = [];
  const taken = new Set<string>();
  const takenSeconds = new Map<string, number>();
  const busyPrinters = new Set<string>();
  /** How many printers of the farm hold each (material, colour) spool, and each material. */
  const loadedCount = new Map<string, number>();
  const bump = (spool: Spool | null, by: number) => {
    if (!spool) return;
    const pair = `${spool.material}\u0000${spool.colour}`;
    loadedCount.set(pair, (loadedCount.get(pair) ?? 0) + by);
    loadedCount.set(spool.material, (loadedCount.get(spool.material) ?? 0) + by);
  };
  for (const p of printers) if (!p.retired) bump(p.loaded, 1);
  const holders = (material: string, colour: string) =>
    loadedCount.get(colour === ANY_COLOUR ? material : `${material}\u0000${colour}`) ?? 0;

  const assign = (printer: PlannerPrinter, entry: Entry, rule: Assignment['rule']) => {
    const job = entry.job;
    let spoolChange: Spool | null = null;
    if (!spoolServes(printer.loaded, job)) {
      spoolChange = {
        material: job.material,
        colour: job.colour === ANY_COLOUR ? colourFor(queue, job, printer) : job.colour,
      };
      bump(printer.loaded, -1);
      bump(spoolChange, 1);
    } else if (!spoolHolds(printer.loaded!, job)) {
      // The right spool, too nearly empty: a fresh one of the same (the loaded count is unchanged).
      spoolChange = { material: printer.loaded!.material, colour: printer.loaded!.colour };
      if (rule === 'loaded-spool') rule = 'fresh-spool';
    }
    taken.add(job.id);
    // The plate fills as its lead is chosen, so that the printers after it see only the jobs left
    // and turn to other work rather than splitting one group into thinner plates.
    const assignment = fillPlate({ jobId: job.id, printerId: printer.id, spoolChange, rule }, printer, queue, taken, now);
    assignments.push(assignment);
    for (const part of assignment.plate ?? [{ id: job.id }]) {
      const member = queue.get(part.id)!;
      if (member.pinnedPrinterId !== null) continue;
      const id = bucketId(member.material, member.colour, member.nozzleMm);
      takenSeconds.set(id, (takenSeconds.get(id) ?? 0) + member.printSeconds);
    }
    busyPrinters.add(printer.id);
    stagger.started(printer);
  };

  /** The first live, untaken job of a bucket that fits the printer (nozzle and material already match). */
  // Where each (group, bed size) scan got to in this decision. Within one decision jobs are only ever
  // taken, never given back, and a part that does not fit a bed never will: a scan can resume where
  // the last one for the same bed stopped, so a decision reads each group at most once per bed size
  // (a farm of 300 printers of 5 models scans a group 5 times, not 300).
  const cursors = new Map<Bucket, Map<string, number>>();
  const bedKeys = new Map<PlannerPrinter, string>();
  const firstFitting = (bucket: Bucket | undefined, printer: PlannerPrinter): Entry | null => {
    if (!bucket) return null;
    let bedKey = bedKeys.get(printer);
    if (bedKey === undefined) {
      bedKey = `${printer.bed.x}x${printer.bed.y}x${printer.bed.z}`;
      bedKeys.set(printer, bedKey);
    }
    let perBed = cursors.get(bucket);
    if (!perBed) {
      perBed = new Map();
      cursors.set(bucket, perBed);
    }
    const { entries } = bucket;
    let i = perBed.get(bedKey) ?? bucket.head;
    for (; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.live && !taken.has(e.job.id) && fitsBed(e.job.size, printer.bed, options)) break;
    }
    perBed.set(bedKey, i);
    return i < entries.length ? entries[i]! : null;
  };

  // 2. Pinned jobs first, on their printer.
  for (const printer of ready) {
    if (!stagger.mayStart(printer)) continue;
    const pinned = printer.id;
    for (const e of queue.pinnedTo(pinned)) {
      if (fitsPrinter(e.job, printer, options)) {
        assign(printer, e, 'pinned');
        break;
      }
    }
  }

  // 3. Overdue work that no printer of the farm holds a spool for gets one ready printer switched to it.
  const overdue: { bucket: Bucket; entry: Entry }[] = [];
  for (const bucket of allBuckets(queue, ready)) {
    const head = firstLive(bucket, taken);
    if (head && head.key <= now && holders(bucket.material, bucket.colour) === 0)
      overdue.push({ bucket, entry: head });
  }
  overdue.sort((a, b) => (before(a.entry, b.entry) ? -1 : 1));
  for (const { bucket, entry } of overdue) {
    if (holders(bucket.material, bucket.colour) > 0) continue;
    // Prefer a printer with nothing to do for its spool, then the one whose spool has the least waiting work.
    const candidates = ready.filter(
      (p) => !busyPrinters.has(p.id) && stagger.mayStart(p) && fitsPrinter(entry.job, p, options),
    );
    if (candidates.length === 0) continue;
    let best = candidates[0]!;
    let bestWork = loadedWork(queue, best);
    for (const p of candidates) {
      const work = loadedWork(queue, p);
      if (work < bestWork) [best, bestWork] = [p, work];
    }
    assign(best, entry, 'overdue');
  }

  // 4. Loaded spools: each ready printer's best job for its spool, highest priority across the farm first.
  // The two groups a printer's loaded spool serves, looked up once per printer and decision.
  const loadedBuckets = new Map<string, readonly [Bucket | undefined, Bucket | undefined]>();
  const bestForLoaded = (printer: PlannerPrinter): Entry | null => {
    const spool = printer.loaded;
    if (!spool || !printsMaterial(printer, spool.material)) return null;
    let groups = loadedBuckets.get(printer.id);
    if (!groups) {
      groups = [
        queue.bucket(spool.material, spool.colour, printer.nozzleMm),
        queue.bucket(spool.material, ANY_COLOUR, printer.nozzleMm),
      ];
      loadedBuckets.set(printer.id, groups);
    }
    const a = firstFitting(groups[0], printer);
    const b = firstFitting(groups[1], printer);
    if (!a) return b;
    if (!b) return a;
    return before(a, b) ? a : b;
  };
  // Printers with the same spool, nozzle and bed size see the same jobs in the same order: they are
  // served as one class (its printers in `ready` order), so that many identical printers cost one
  // heap entry, not one each that goes stale at every assignment.
  interface PrinterClass {
    readonly printers: PlannerPrinter[];
    next: number;
    entry: Entry | null;
  }
  const classes = new Map<string, PrinterClass>();
  for (const printer of ready) {
    if (busyPrinters.has(printer.id) || !printer.loaded) continue;
    const { bed, loaded } = printer;
    const key = `${loaded.material}\u0000${loaded.colour}\u0000${nozzleKey(printer.nozzleMm)}\u0000${bed.x}x${bed.y}x${bed.z}`;
    const cls = classes.get(key);
    if (cls) cls.printers.push(printer);
    else classes.set(key, { printers: [printer], next: 0, entry: null });
  }
  const heap = new MinHeap<PrinterClass>(
    (x, y) =>
      before(x.entry!, y.entry!) ||
      (!before(y.entry!, x.entry!) && x.printers[x.next]!.id < y.printers[y.next]!.id),
  );
  /**
   * The class's next printer that may start (its group's stagger) and has a job for its spool (a
   * printer may not print the loaded material).
   */
  const advance = (cls: PrinterClass) => {
    for (; cls.next < cls.printers.length; cls.next++) {
      if (!stagger.mayStart(cls.printers[cls.next]!)) continue;
      cls.entry = bestForLoaded(cls.printers[cls.next]!);
      if (cls.entry) {
        heap.push(cls);
        return;
      }
    }
  };
  for (const cls of classes.values()) advance(cls);
  while (heap.size > 0) {
    const cls = heap.pop()!;
    const printer = cls.printers[cls.next]!;
    if (taken.has(cls.entry!.job.id)) {
      advance(cls);
      continue;
    }
    if (!stagger.mayStart(printer)) {
      // Its group used its starts on other printers since this class was queued.
      cls.next += 1;
      advance(cls);
      continue;
    }
    assign(printer, cls.entry!, 'loaded-spool');
    cls.next += 1;
    advance(cls);
  }

  const idlePrinters = () =>
    ready.filter((p) => !busyPrinters.has(p.id) && stagger.mayStart(p) && bestForLoaded(p) === null);

  // 5. Spool changes for ready printers with nothing for their spool.
  for (const printer of idlePrinters()) {
    if (!stagger.mayStart(printer)) continue;
    const ranked = queue
      .bucketsFor(printer.nozzleMm)
      .filter((b) => printsMaterial(printer, b.material) && b.count > 0)
      .map((b) => ({
        b,
        score:
          (b.seconds - (takenSeconds.get(bucketId(b.material, b.colour, b.nozzleMm)) ?? 0)) /
          (1 + holders(b.material, b.colour)),
      }))
      .sort(
        (x, y) =>
          y.score - x.score ||
          cmp(bucketId(x.b.material, x.b.colour, 0), bucketId(y.b.material, y.b.colour, 0)),
      );
    for (const { b } of ranked) {
      const entry = firstFitting(b, printer);
      if (entry) {
        assign(printer, entry, 'spool-change');
        break;
      }
    }
  }

  const heldBack = ready.filter((p) => !busyPrinters.has(p.id) && !stagger.mayStart(p));
  return { assignments, startsLeft: stagger.left(), nextStartAt: stagger.nextStartAt(heldBack) };
}

/**
 * Rule 7: the jobs that join `lead`'s plate, taken from the queue in priority order (marked in
 * `taken`). A pinned job prints alone: a person chose that printer for that part.
 */
function fillPlate(
  lead: Assignment,
  printer: PlannerPrinter,
  queue: DispatchQueue,
  taken: Set<string>,
  now: number,
): Assignment {
  const options = queue.options;
  const leadEntry = queue.entry(lead.jobId)!;
  const leadJob = leadEntry.job;
  if (options.partsPerPlate <= 1 || leadJob.pinnedPrinterId !== null || !leadJob.plateKey)
    return lead;
  const spool = lead.spoolChange ?? printer.loaded!;
  // A fresh spool's weight is not known; a loaded one must hold the whole plate.
  const gramsLeft = lead.spoolChange === null ? printer.loaded?.gramsLeft : undefined;
  const groups =
    spool.colour === ANY_COLOUR
      ? [queue.bucket(spool.material, ANY_COLOUR, printer.nozzleMm)]
      : [
          queue.bucket(spool.material, spool.colour, printer.nozzleMm),
          queue.bucket(spool.material, ANY_COLOUR, printer.nozzleMm),
        ];
  const candidates: Entry[] = [];
  for (const bucket of groups) {
    if (!bucket) continue;
    let seen = 0;
    for (let i = bucket.head; i < bucket.entries.length && seen < options.plateScanLimit; i++) {
      const e = bucket.entries[i]!;
      if (!e.live || taken.has(e.job.id) || e.job.plateKey !== leadJob.plateKey) continue;
      seen += 1;
      candidates.push(e);
    }
  }
  candidates.sort((a, b) => (before(a, b) ? -1 : 1));

  const spacing = {
    edgeMarginMm: options.bedMarginMm,
    gapMm: options.plateGapMm,
    heightMarginMm: options.heightMarginMm,
  };
  const members: Entry[] = [leadEntry];
  let layout: Placement[] | null = null;
  let seconds = leadJob.printSeconds;
  let grams = leadJob.grams ?? 0;
  let gramsKnown = leadJob.grams !== undefined;
  // A part that would miss its promise even printed alone now is late already, not late for the
  // plate: it binds nothing, but a late lead takes only parts as late as it is (all of them behind,
  // each would otherwise wait for a plate of its own), never on-time ones that would hold it up.
  const lateAlone = (e: Entry) => now + e.job.printSeconds * 1000 > promisedBy(e.job, options);
  const leadLate = lateAlone(leadEntry);
  let earliestDeadline = leadLate ? Infinity : leadEntry.key;
  for (const e of candidates) {
    if (members.length >= options.partsPerPlate) break;
    const late = lateAlone(e);
    if (leadLate && !late) continue;
    const deadline = late ? earliestDeadline : Math.min(earliestDeadline, e.key);
    const endsAt = now + (seconds + e.job.printSeconds) * 1000 + options.plateSlackMs;
    if (endsAt > deadline) continue;
    if (
      gramsLeft !== undefined &&
      gramsKnown &&
      e.job.grams !== undefined &&
      gramsLeft < gramsNeeded(grams + e.job.grams)
    )
      continue;
    const tried = packPlate(
      [...members, e].map((m) => ({ id: m.job.id, size: m.job.size })),
      printer.bed,
      spacing,
    );
    if (!tried) continue;
    members.push(e);
    layout = tried;
    seconds += e.job.printSeconds;
    if (e.job.grams === undefined) gramsKnown = false;
    else grams += e.job.grams;
    earliestDeadline = deadline;
    taken.add(e.job.id);
  }
  if (!layout) return lead;
  // The lead first, then the others in priority order (the order their labels get on the plate).
  const at = new Map(layout.map((p) => [p.id, p]));
  return { ...lead, plate: members.map((m) => at.get(m.job.id)!) };
}

/**
 * Staggered starts per power group: each group's starts in its window (the last `perSeconds`),
 * those of this decision included. Printers in no group always may start.
 */
function groupStagger(printers: readonly PlannerPrinter[], now: number) {
  const groups = new Map<string, { group: PowerGroup; starts: number[] }>();
  for (const p of printers) {
    if (!p.group) continue;
    let entry = groups.get(p.group.id);
    if (!entry) {
      entry = { group: p.group, starts: [] };
      groups.set(p.group.id, entry);
    }
    const windowStart = now - p.group.perSeconds * 1000;
    if (p.lastStartAt !== null && p.lastStartAt > windowStart && p.lastStartAt <= now) entry.starts.push(p.lastStartAt);
  }
  const left = (id: string) => {
    const entry = groups.get(id)!;
    return Math.max(0, entry.group.maxStarts - entry.starts.length);
  };
  return {
    mayStart: (p: PlannerPrinter) => !p.group || left(p.group.id) > 0,
    started(p: PlannerPrinter) {
      if (p.group) groups.get(p.group.id)!.starts.push(now);
    },
    left: () => new Map([...groups.keys()].map((id) => [id, left(id)])),
    /** When the first group holding back one of these printers frees a start: its oldest start in the window leaves it. */
    nextStartAt(heldBack: readonly PlannerPrinter[]): number | null {
      let next: number | null = null;
      for (const id of new Set(heldBack.map((p) => p.group!.id))) {
        const { group, starts } = groups.get(id)!;
        const sorted = [...starts].sort((a, b) => a - b);
        const at = sorted[sorted.length - group.maxStarts]! + group.perSeconds * 1000;
        if (next === null || at < next) next = at;
      }
      return next;
    },
  };
}

function allBuckets(queue: DispatchQueue, ready: readonly PlannerPrinter[]): Bucket[] {
  const nozzles = new Map<string, number>();
  for (const p of ready) nozzles.set(nozzleKey(p.nozzleMm), p.nozzleMm);
  return [...nozzles.values()].flatMap((n) => queue.bucketsFor(n));
}

function firstLive(bucket: Bucket, taken: ReadonlySet<string>): Entry | null {
  for (let i = bucket.head; i < bucket.entries.length; i++) {
    const e = bucket.entries[i]!;
    if (e.live && !taken.has(e.job.id)) return e;
  }
  return null;
}

/** Print seconds waiting for the printer's loaded spool (what it would leave behind by switching). */
function loadedWork(queue: DispatchQueue, printer: PlannerPrinter): number {
  const spool = printer.loaded;
  if (!spool) return 0;
  return (
    (queue.bucket(spool.material, spool.colour, printer.nozzleMm)?.seconds ?? 0) +
    (queue.bucket(spool.material, ANY_COLOUR, printer.nozzleMm)?.seconds ?? 0)
  );
}

/** The colour to load for an "any colour" job: the one of its material with the most waiting work, else the printer's. */
function colourFor(queue: DispatchQueue, job: PlannerJob, printer: PlannerPrinter): string {
  let best: string | null = null;
  let bestSeconds = -1;
  for (const b of queue.bucketsFor(job.nozzleMm)) {
    if (b.material !== job.material || b.colour === ANY_COLOUR) continue;
    if (b.seconds > bestSeconds || (b.seconds === bestSeconds && best !== null && b.colour < best))
      [best, bestSeconds] = [b.colour, b.seconds];
  }
  return best ?? printer.loaded?.colour ?? ANY_COLOUR;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

class MinHeap<T> {
  private readonly items: T[] = [];
  private readonly less: (a: T, b: T) => boolean;
  constructor(less: (a: T, b: T) => boolean) {
    this.less = less;
  }
  get size(): number {
    return this.items.length;
  }
  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }
  pop(): T | undefined {
    const items = this.items;
    if (items.length === 0) return undefined;
    const top = items[0];
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.less(items[l]!, items[m]!)) m = l;
        if (r < items.length && this.less(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}

/* ---------------------------------------------------------------- never placeable */

const mm = (n: number) => (Math.round(n * 10) / 10).toString();
const boxText = (b: Box) => `${mm(b.x)} × ${mm(b.y)} × ${mm(b.z)} mm`;

/**
 * Why no printer of the farm can ever take this job, in words a person understands, or null when
 * some printer can (once it is free and has the right spool). Paused printers count (they come
 * back); retired ones do not. A pinned job is judged against its printer only.
 */
export function unplaceable(
  job: PlannerJob,
  farm: readonly PlannerPrinter[],
  options: PlannerOptions = DEFAULT_PLANNER_OPTIONS,
): string | null {
  const margins = `${mm(options.bedMarginMm)} mm margins`;
  if (!options.knownMaterials.includes(job.material)) {
    return `The material “${job.material}” is not one Layerline prints (it knows ${options.knownMaterials.join(', ')}). Choose one of those for this product.`;
  }
  let printers = farm.filter((p) => !p.retired);
  if (job.pinnedPrinterId !== null) {
    const pinned = printers.find((p) => p.id === job.pinnedPrinterId);
    if (!pinned)
      return 'The job is pinned to a printer that is no longer in the farm. Unpin it or pin it to another printer.';
    printers = [pinned];
  }
  if (printers.length === 0) return 'The farm has no printers. Add a printer to print this job.';
  if (printers.some((p) => fitsPrinter(job, p, options))) return null;

  const pinnedName =
    job.pinnedPrinterId !== null ? `Its pinned printer ${printers[0]!.name ?? printers[0]!.id}` : null;
  const lacks = (what: string) =>
    pinnedName ? `${pinnedName} does not have ${what}` : `No printer of the farm has ${what}`;
  const nozzles = [...new Set(printers.map((p) => p.nozzleMm))].sort((a, b) => a - b);
  const withNozzle = printers.filter((p) => sameNozzle(p.nozzleMm, job.nozzleMm));
  const withMaterial = printers.filter((p) => printsMaterial(p, job.material));
  const bySize = printers.filter((p) => fitsBed(job.size, p.bed, options));
  const problems: string[] = [];
  if (withNozzle.length === 0) {
    const has = nozzles.map((n) => `${mm(n)} mm`).join(', ');
    problems.push(
      `${lacks(`a ${mm(job.nozzleMm)} mm nozzle`)} (${pinnedName ? 'it has' : 'the farm has'} ${has}). Slice the part for ${has}, or fit such a nozzle.`,
    );
  }
  if (withMaterial.length === 0) {
    const allowedOpen = printers.some((p) => allowsMaterial(p, job.material));
    problems.push(
      allowedOpen && needsEnclosure(job.material)
        ? `${job.material} prints only in an enclosure (${MATERIALS_NEEDING_ENCLOSURE.join(', ')} warp and give off fumes in the open), and ${pinnedName ? `${pinnedName} is not enclosed` : 'no printer of the farm that may print it is enclosed'}. Mark an enclosed printer as enclosed and allow ${job.material} on it, or choose another material.`
        : `${pinnedName ? `${pinnedName} may not print` : 'No printer of the farm may print'} ${job.material}. Allow it on a printer that can, or choose another material.`,
    );
  }
  if (bySize.length === 0) {
    const largest = printers.reduce((a, b) =>
      volume(usableBed(b.bed, options)) > volume(usableBed(a.bed, options)) ? b : a,
    );
    problems.push(
      `The part is ${boxText(job.size)}; ${job.pinnedPrinterId !== null ? 'the pinned printer’s bed' : 'the largest bed'} is ` +
        `${boxText(largest.bed)} (${boxText(usableBed(largest.bed, options))} usable with ${margins}), even turned 90°. ` +
        'Scale the part down or split it.',
    );
  }
  if (problems.length > 0) return problems.join(' ');
  // Each need is met by some printer, but never all by one.
  const needs = [
    `a ${mm(job.nozzleMm)} mm nozzle`,
    needsEnclosure(job.material) ? `${job.material} in an enclosure` : job.material,
    `room for ${boxText(job.size)} with ${margins}`,
  ];
  return `${lacks('everything this part needs at once')}: ${needs.join(', ')}. Some printers have one or two of these, none all three.`;
}

const volume = (b: Box) => b.x * b.y * b.z;
