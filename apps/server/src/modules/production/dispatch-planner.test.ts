import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ANY_COLOUR,
  DEFAULT_PLANNER_OPTIONS,
  DispatchQueue,
  canRunOn,
  fitsBed,
  isReady,
  planDispatch,
  priorityKey,
  unplaceable,
  type PlannerJob,
  type PlannerOptions,
  type PlannerPrinter,
  type PowerGroup,
  SPOOL_MARGIN,
  gramsNeeded,
} from './dispatch-planner.ts';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 25, 12);

const printer = (id: string, over: Partial<PlannerPrinter> = {}): PlannerPrinter => ({
  id,
  bed: { x: 250, y: 210, z: 210 },
  nozzleMm: 0.4,
  loaded: { material: 'PLA', colour: 'black' },
  enclosed: false,
  online: true,
  idle: true,
  bedClear: true,
  lastStartAt: null,
  ...over,
});

const job = (id: string, over: Partial<PlannerJob> = {}): PlannerJob => ({
  id,
  size: { x: 40, y: 40, z: 40 },
  material: 'PLA',
  colour: 'black',
  nozzleMm: 0.4,
  printSeconds: 3600,
  orderPlacedAt: NOW - HOUR,
  dueAt: null,
  sellerPriority: 0,
  rush: false,
  pinnedPrinterId: null,
  ...over,
});

const plan = (
  printers: PlannerPrinter[],
  jobs: PlannerJob[],
  options: Partial<PlannerOptions> = {},
  now = NOW,
) => planDispatch(printers, new DispatchQueue(jobs, options), now);
const pairs = (d: ReturnType<typeof plan>) => d.assignments.map((a) => `${a.jobId}@${a.printerId}`).sort();

describe('fitting a part on a bed', () => {
  const bed = { x: 250, y: 210, z: 210 };
  it('keeps the margins on every side and above', () => {
    expect(fitsBed({ x: 240, y: 200, z: 208 }, bed)).toBe(true);
    expect(fitsBed({ x: 240.1, y: 200, z: 100 }, bed)).toBe(false);
    expect(fitsBed({ x: 220, y: 200.1, z: 100 }, bed)).toBe(false);
    expect(fitsBed({ x: 100, y: 100, z: 208.1 }, bed)).toBe(false);
    expect(fitsBed({ x: 250, y: 210, z: 210 }, bed, { bedMarginMm: 0, heightMarginMm: 0 })).toBe(true);
  });
  it('turns a part 90° about Z when that is what fits, and never lays it on another face', () => {
    expect(fitsBed({ x: 190, y: 230, z: 50 }, bed)).toBe(true);
    // Lying on its side (z ↔ x) would fit, but that is not allowed.
    expect(fitsBed({ x: 50, y: 50, z: 230 }, bed)).toBe(false);
  });
});

describe('what may run where', () => {
  it('needs the material, the colour, the nozzle, the bed and a ready printer', () => {
    const p = printer('p1');
    expect(canRunOn(job('j'), p)).toBe(true);
    expect(canRunOn(job('j', { material: 'PETG' }), p)).toBe(false);
    expect(canRunOn(job('j', { colour: 'red' }), p)).toBe(false);
    expect(canRunOn(job('j', { colour: ANY_COLOUR }), p)).toBe(true);
    expect(canRunOn(job('j', { colour: ANY_COLOUR, material: 'PETG' }), p)).toBe(false);
    expect(canRunOn(job('j', { nozzleMm: 0.6 }), p)).toBe(false);
    expect(canRunOn(job('j', { size: { x: 300, y: 10, z: 10 } }), p)).toBe(false);
    expect(canRunOn(job('j'), { ...p, online: false })).toBe(false);
    expect(canRunOn(job('j'), { ...p, idle: false })).toBe(false);
    expect(canRunOn(job('j'), { ...p, bedClear: false })).toBe(false);
    expect(canRunOn(job('j'), { ...p, paused: true })).toBe(false);
    expect(canRunOn(job('j', { pinnedPrinterId: 'p2' }), p)).toBe(false);
    expect(canRunOn(job('j', { pinnedPrinterId: 'p1' }), p)).toBe(true);
  });

  it('sends nothing to a printer that is offline, busy, paused or whose bed is not confirmed clear', () => {
    const printers = [
      printer('off', { online: false }),
      printer('busy', { idle: false }),
      printer('dirty', { bedClear: false }),
      printer('paused', { paused: true }),
      printer('retired', { retired: true }),
    ];
    expect(plan(printers, [job('a'), job('b', { colour: 'red' })]).assignments).toEqual([]);
  });

  it('never changes a spool the printer may not print, and never fits a part on a too small bed by changing spools', () => {
    const p = printer('mini', {
      bed: { x: 180, y: 180, z: 180 },
      materials: ['PLA', 'PETG'],
      loaded: { material: 'PLA', colour: 'red' },
    });
    const d = plan([p], [job('abs', { material: 'ABS' }), job('big', { size: { x: 200, y: 100, z: 10 } })]);
    expect(d.assignments).toEqual([]);
  });
});

describe('priority', () => {
  it('puts rush, then due dates, then seller priority, then age ahead', () => {
    const old = job('old', { orderPlacedAt: NOW - 20 * HOUR });
    const fresh = job('fresh');
    const seller = job('seller', { sellerPriority: 2 });
    const due = job('due', { dueAt: NOW + 6 * HOUR });
    const rush = job('rush', { rush: true });
    const order = [fresh, old, seller, due, rush]
      .sort((a, b) => priorityKey(a) - priorityKey(b))
      .map((j) => j.id);
    expect(order).toEqual(['due', 'rush', 'seller', 'old', 'fresh']);
    // One printer: the most urgent job goes first.
    expect(pairs(plan([printer('p1')], [fresh, old, seller, due, rush]))).toEqual(['due@p1']);
  });

  it('keeps first-in-first-out among equals', () => {
    const d = plan([printer('p1')], [job('first'), job('second'), job('third')]);
    expect(pairs(d)).toEqual(['first@p1']);
  });

  it('gives the most urgent compatible jobs to the ready printers, whatever their order', () => {
    const jobs = [
      job('j3', { orderPlacedAt: NOW - 3 * HOUR }),
      job('j1', { orderPlacedAt: NOW - 9 * HOUR }),
      job('j2', { orderPlacedAt: NOW - 5 * HOUR }),
    ];
    expect(pairs(plan([printer('b'), printer('a')], jobs))).toEqual(['j1@a', 'j2@b']);
  });
});

describe('grouping by colour and material', () => {
  it('keeps a printer on its loaded spool while there is work for it, even ahead of more urgent work in another colour', () => {
    const p = printer('p1', { loaded: { material: 'PLA', colour: 'red' } });
    const d = plan([p], [job('blue-urgent', { colour: 'blue', rush: true }), job('red', { colour: 'red' })]);
    expect(d.assignments).toEqual([
      { jobId: 'red', printerId: 'p1', spoolChange: null, rule: 'loaded-spool' },
    ]);
  });

  it('lets "any colour" jobs run on whatever colour of their material is loaded', () => {
    const d = plan(
      [printer('p1', { loaded: { material: 'PETG', colour: 'orange' } })],
      [job('any', { material: 'PETG', colour: ANY_COLOUR })],
    );
    expect(d.assignments).toEqual([
      { jobId: 'any', printerId: 'p1', spoolChange: null, rule: 'loaded-spool' },
    ]);
  });

  it('changes to the spool that serves the most waiting print time when nothing matches the loaded one', () => {
    const jobs = [
      job('blue-1', { colour: 'blue', printSeconds: 3000 }),
      job('green-1', { colour: 'green', printSeconds: 2000 }),
      job('green-2', { colour: 'green', printSeconds: 2000 }),
    ];
    const d = plan([printer('p1', { loaded: { material: 'PLA', colour: 'red' } })], jobs);
    expect(d.assignments).toEqual([
      {
        jobId: 'green-1',
        printerId: 'p1',
        spoolChange: { material: 'PLA', colour: 'green' },
        rule: 'spool-change',
      },
    ]);
  });

  it('shares a colour’s waiting work among the printers already holding it, so they do not all switch to it', () => {
    const jobs = [
      ...Array.from({ length: 6 }, (_, i) => job(`green-${i}`, { colour: 'green', printSeconds: 1000 })),
      job('blue', { colour: 'blue', printSeconds: 4000 }),
    ];
    const busyGreen = [1, 2].map((i) =>
      printer(`g${i}`, { idle: false, loaded: { material: 'PLA', colour: 'green' } }),
    );
    const d = plan([...busyGreen, printer('p1', { loaded: { material: 'PLA', colour: 'red' } })], jobs);
    // green: 6000 s / (2 holders + 1) = 2000 < blue: 4000 s / 1.
    expect(pairs(d)).toEqual(['blue@p1']);
  });

  it('two free printers with nothing loaded that matches split across colours rather than both taking one', () => {
    const jobs = [
      job('g1', { colour: 'green', printSeconds: 5000 }),
      job('g2', { colour: 'green', printSeconds: 1000 }),
      job('b1', { colour: 'blue', printSeconds: 5000 }),
    ];
    const d = plan([printer('p1', { loaded: null }), printer('p2', { loaded: null })], jobs);
    expect(d.assignments.map((a) => a.spoolChange?.colour).sort()).toEqual(['blue', 'green']);
  });

  it('loads, for an "any colour" job, the colour of its material with the most waiting work', () => {
    const jobs = [
      job('any', { material: 'PETG', colour: ANY_COLOUR, printSeconds: 9000 }),
      job('petg-white', { material: 'PETG', colour: 'white', printSeconds: 10 }),
    ];
    const d = plan([printer('p1', { loaded: { material: 'PLA', colour: 'red' } })], jobs);
    expect(d.assignments).toEqual([
      {
        jobId: 'any',
        printerId: 'p1',
        spoolChange: { material: 'PETG', colour: 'white' },
        rule: 'spool-change',
      },
    ]);
  });

  it('leaves the colour to the operator for an "any colour" job when nothing tells it which', () => {
    const d = plan([printer('p1', { loaded: null })], [job('any', { material: 'TPU', colour: ANY_COLOUR })]);
    expect(d.assignments).toEqual([
      {
        jobId: 'any',
        printerId: 'p1',
        spoolChange: { material: 'TPU', colour: ANY_COLOUR },
        rule: 'spool-change',
      },
    ]);
  });

  it('switches one printer to overdue work that no printer of the farm holds a spool for', () => {
    const jobs = [
      job('red-1', { colour: 'red' }),
      job('red-2', { colour: 'red' }),
      job('late-teal', { colour: 'teal', orderPlacedAt: NOW - 80 * HOUR }),
      job('late-teal-2', { colour: 'teal', orderPlacedAt: NOW - 79 * HOUR }),
    ];
    const red = { material: 'PLA', colour: 'red' };
    const d = plan([printer('p1', { loaded: red }), printer('p2', { loaded: red })], jobs);
    expect(pairs(d)).toEqual(['late-teal@p1', 'red-1@p2'].sort());
    expect(d.assignments.find((a) => a.jobId === 'late-teal')).toMatchObject({
      rule: 'overdue',
      spoolChange: { colour: 'teal' },
    });
  });
});

describe('pinned jobs', () => {
  it('go only to their printer, ahead of its other work, changing its spool if need be', () => {
    const jobs = [job('urgent', { rush: true }), job('pinned', { colour: 'blue', pinnedPrinterId: 'p2' })];
    const d = plan([printer('p1'), printer('p2')], jobs);
    expect(d.assignments).toEqual([
      { jobId: 'pinned', printerId: 'p2', spoolChange: { material: 'PLA', colour: 'blue' }, rule: 'pinned' },
      { jobId: 'urgent', printerId: 'p1', spoolChange: null, rule: 'loaded-spool' },
    ]);
    expect(plan([printer('p1')], [job('pinned', { pinnedPrinterId: 'p2' })]).assignments).toEqual([]);
  });
});

describe('staggered starts per power group', () => {
  const circuit = (id: string, maxStarts: number, perSeconds = 60): PowerGroup => ({ id, maxStarts, perSeconds });

  it('starts at most maxStarts jobs per perSeconds within a group and says when the next may start', () => {
    const a = circuit('a', 2);
    const printers = Array.from({ length: 5 }, (_, i) => printer(`p${i}`, { group: a }));
    const d = plan(printers, Array.from({ length: 10 }, (_, i) => job(`j${i}`)));
    expect(d.assignments).toHaveLength(2);
    expect(d.startsLeft.get('a')).toBe(0);
    expect(d.nextStartAt).toBe(NOW + 60_000);
  });

  it('staggers each group on its own and never staggers printers in no group', () => {
    const a = circuit('a', 1);
    const b = circuit('b', 2, 30);
    const printers = [
      printer('a1', { group: a }),
      printer('a2', { group: a }),
      printer('b1', { group: b }),
      printer('b2', { group: b }),
      printer('b3', { group: b }),
      printer('free1'),
      printer('free2', { group: null }),
      printer('free3'),
    ];
    const d = plan(printers, Array.from({ length: 20 }, (_, i) => job(`j${i}`)));
    const on = (prefix: string) => d.assignments.filter((x) => x.printerId.startsWith(prefix)).length;
    expect([on('a'), on('b'), on('free')]).toEqual([1, 2, 3]);
    expect(Object.fromEntries(d.startsLeft)).toEqual({ a: 0, b: 0 });
    // The b circuit's 30 s window frees first.
    expect(d.nextStartAt).toBe(NOW + 30_000);
  });

  it('gives a group’s scarce start to its most urgent work', () => {
    const a = circuit('a', 1);
    const printers = [
      printer('red', { loaded: { material: 'PLA', colour: 'red' }, group: a }),
      printer('blue', { loaded: { material: 'PLA', colour: 'blue' }, group: a }),
    ];
    const jobs = [job('red', { colour: 'red' }), job('blue-rush', { colour: 'blue', rush: true })];
    expect(pairs(plan(printers, jobs))).toEqual(['blue-rush@blue']);
  });

  it('counts the group’s starts already made in its window, by each printer’s last start', () => {
    const a = circuit('a', 2);
    const printers = [
      printer('busy1', { idle: false, lastStartAt: NOW - 50_000, group: a }),
      printer('busy2', { idle: false, lastStartAt: NOW - 10_000, group: a }),
      // A start in another group, or long ago, does not count.
      printer('other', { idle: false, lastStartAt: NOW - 5_000, group: circuit('b', 1) }),
      printer('old', { idle: false, lastStartAt: NOW - 600_000, group: a }),
      printer('p1', { group: a }),
      printer('p2', { group: a }),
    ];
    const d = plan(printers, [job('x'), job('y')]);
    expect(d.assignments).toEqual([]);
    expect(d.nextStartAt).toBe(NOW - 50_000 + 60_000);
    expect(plan(printers, [job('x'), job('y')], {}, NOW + 10_001).assignments).toHaveLength(1);
  });
});

describe('allowed materials and the enclosure', () => {
  it('never puts ABS, ASA or Nylon on an open printer, even with the right spool loaded', () => {
    const open = printer('open', { loaded: { material: 'ASA', colour: 'black' } });
    expect(plan([open], [job('asa', { material: 'ASA' })]).assignments).toEqual([]);
    expect(canRunOn(job('asa', { material: 'ASA' }), open)).toBe(false);
    const closed = printer('closed', { loaded: { material: 'ASA', colour: 'black' }, enclosed: true });
    expect(pairs(plan([open, closed], [job('asa', { material: 'ASA' })]))).toEqual(['asa@closed']);
  });

  it('never asks an open printer, or one not allowed the material, for a spool change to it', () => {
    const farm = [
      printer('open'),
      printer('no-abs', { enclosed: true, materials: ['PLA', 'PETG'] }),
      printer('box', { enclosed: true, idle: false }),
    ];
    // The only printer that may print it is busy: the job waits rather than go to an open frame.
    expect(plan(farm, [job('abs', { material: 'ABS', colour: 'red' })]).assignments).toEqual([]);
    const overdue = job('abs', { material: 'ABS', colour: 'red', orderPlacedAt: NOW - 100 * HOUR });
    expect(plan(farm, [overdue]).assignments).toEqual([]);
    expect(pairs(plan([...farm, printer('box2', { enclosed: true })], [overdue]))).toEqual(['abs@box2']);
  });

  it('holds a job no printer may ever take for its material, saying the enclosure is missing', () => {
    const farm = [printer('mk3', { name: 'MK3 #1' }), printer('mini', { materials: ['PLA'] })];
    expect(unplaceable(job('j', { material: 'ABS' }), farm)).toMatch(
      /ABS prints only in an enclosure .* no printer of the farm that may print it is enclosed/,
    );
    expect(unplaceable(job('j', { material: 'ABS' }), [printer('mini', { materials: ['PLA'] })])).toMatch(
      /No printer of the farm may print ABS/,
    );
    // A paused or flagged enclosed printer still counts: it comes back.
    expect(unplaceable(job('j', { material: 'ABS' }), [...farm, printer('box', { enclosed: true, flagged: true })])).toBeNull();
  });
});

describe('grams left on the spool', () => {
  it('needs the job’s grams plus 10 % and 5 g', () => {
    expect(SPOOL_MARGIN).toEqual({ percent: 10, grams: 5 });
    expect(gramsNeeded(33)).toBe(42); // 36.3 + 5, rounded up
    expect(gramsNeeded(100)).toBe(115);
    expect(gramsNeeded(0)).toBe(5);
  });

  it('asks for a fresh spool of the same material and colour when the loaded one holds too little', () => {
    const low = printer('low', { loaded: { material: 'PLA', colour: 'black', gramsLeft: 114 } });
    expect(plan([low], [job('j', { grams: 100 })]).assignments).toEqual([
      { jobId: 'j', printerId: 'low', spoolChange: { material: 'PLA', colour: 'black' }, rule: 'fresh-spool' },
    ]);
    const enough = printer('ok', { loaded: { material: 'PLA', colour: 'black', gramsLeft: 115 } });
    expect(plan([enough], [job('j', { grams: 100 })]).assignments).toEqual([
      { jobId: 'j', printerId: 'ok', spoolChange: null, rule: 'loaded-spool' },
    ]);
    expect(canRunOn(job('j', { grams: 100 }), low)).toBe(false);
    expect(canRunOn(job('j', { grams: 100 }), enough)).toBe(true);
  });

  it('keeps an any-colour job on the loaded colour when it asks for a fresh spool', () => {
    const low = printer('low', { loaded: { material: 'PLA', colour: 'white', gramsLeft: 10 } });
    const d = plan([low], [job('j', { colour: ANY_COLOUR, grams: 50 })]);
    expect(d.assignments[0]!.spoolChange).toEqual({ material: 'PLA', colour: 'white' });
  });
});

describe('a printer flagged for a person', () => {
  it('takes no job until the flag is cleared', () => {
    expect(isReady(printer('p', { flagged: true }))).toBe(false);
    expect(plan([printer('p', { flagged: true })], [job('j')]).assignments).toEqual([]);
    expect(pairs(plan([printer('p', { flagged: false })], [job('j')]))).toEqual(['j@p']);
  });
});

describe('the queue index', () => {
  it('adds, removes, refuses duplicates, and stays consistent after many removals', () => {
    const q = new DispatchQueue(
      Array.from({ length: 100 }, (_, i) => job(`j${i}`, { orderPlacedAt: NOW - i * 1000 })),
    );
    expect(q.size).toBe(100);
    expect(() => q.add(job('j5'))).toThrow(/already queued/);
    for (let i = 99; i >= 10; i--) expect(q.remove(`j${i}`)).toBe(true);
    expect(q.remove('j99')).toBe(false);
    expect(q.size).toBe(10);
    // The oldest left is j9.
    expect(pairs(planDispatch([printer('p1')], q, NOW))).toEqual(['j9@p1']);
    q.add(job('new', { rush: true }));
    expect(pairs(planDispatch([printer('p1')], q, NOW))).toEqual(['new@p1']);
  });
});

describe('the cost of a decision', () => {
  it('reads each group once per bed size, not once per printer, when the parts fit none of the ready beds', () => {
    let sizeReads = 0;
    const big = { x: 200, y: 200, z: 50 };
    const jobs = Array.from({ length: 2_000 }, (_, i) => {
      const j = job(`j${i}`, { orderPlacedAt: NOW - i });
      return Object.defineProperty({ ...j }, 'size', {
        get: () => {
          sizeReads += 1;
          return big;
        },
      });
    });
    const minis = Array.from({ length: 100 }, (_, i) =>
      printer(`mini-${i}`, { bed: { x: 180, y: 180, z: 180 } }),
    );
    const queue = new DispatchQueue(jobs);
    sizeReads = 0;
    expect(planDispatch(minis, queue, NOW).assignments).toEqual([]);
    // One bed size: one pass over the 2,000 jobs (plus a few), where a scan per printer would read 200,000+.
    expect(sizeReads).toBeLessThan(10_000);
  });
});

describe('jobs no printer can ever take', () => {
  const farm = [
    printer('mk4', { name: 'MK4 #1', bed: { x: 250, y: 210, z: 220 } }),
    printer('mini', { name: 'Mini #1', bed: { x: 180, y: 180, z: 180 }, nozzleMm: 0.6, materials: ['PLA'] }),
    printer('big', { name: 'Big', bed: { x: 400, y: 400, z: 400 }, retired: true }),
  ];

  it('says nothing when some printer can take it, busy, paused or with another spool', () => {
    expect(unplaceable(job('j', { colour: 'pink', material: 'PETG' }), farm)).toBeNull();
    expect(unplaceable(job('j'), [printer('p', { online: false, paused: true })])).toBeNull();
  });

  it('names the part’s size and the largest bed when it is too big (retired printers do not count)', () => {
    const reason = unplaceable(job('j', { size: { x: 252.3, y: 233.2, z: 250.2 } }), farm);
    expect(reason).toBe(
      'The part is 252.3 × 233.2 × 250.2 mm; the largest bed is 250 × 210 × 220 mm (240 × 200 × 218 mm usable with 5 mm margins), even turned 90°. Scale the part down or split it.',
    );
  });

  it('names an unknown material and the ones it knows', () => {
    expect(unplaceable(job('j', { material: 'Wood' }), farm)).toBe(
      'The material “Wood” is not one Layerline prints (it knows PLA, PETG, ABS, ASA, TPU, Nylon). Choose one of those for this product.',
    );
  });

  it('names a nozzle the farm does not have', () => {
    expect(unplaceable(job('j', { nozzleMm: 0.8 }), farm)).toMatch(
      /^No printer of the farm has a 0\.8 mm nozzle \(the farm has 0\.4 mm, 0\.6 mm\)/,
    );
  });

  it('says when each need is met by some printer but never all by one', () => {
    // 0.6 mm only on the Mini; 200 mm only fits the MK4.
    expect(unplaceable(job('j', { nozzleMm: 0.6, size: { x: 200, y: 150, z: 20 } }), farm)).toMatch(
      /^No printer of the farm has everything this part needs at once: a 0\.6 mm nozzle, PLA, room for 200 × 150 × 20 mm/,
    );
  });

  it('judges a pinned job against its printer only', () => {
    expect(unplaceable(job('j', { pinnedPrinterId: 'mini' }), farm)).toMatch(
      /^Its pinned printer Mini #1 does not have a 0\.4 mm nozzle/,
    );
    expect(unplaceable(job('j', { pinnedPrinterId: 'gone' }), farm)).toMatch(
      /pinned to a printer that is no longer in the farm/,
    );
    expect(unplaceable(job('j'), [])).toMatch(/no printers/);
  });
});

/* ---------------------------------------------------------------- properties */

const MATERIALS = ['PLA', 'PETG', 'ABS'];
const COLOURS = ['red', 'blue', 'black'];
const BEDS = [
  { x: 180, y: 180, z: 180 },
  { x: 250, y: 210, z: 210 },
  { x: 350, y: 350, z: 350 },
];

/** Power groups tight enough that scarce starts get exercised. */
const GROUPS: readonly PowerGroup[] = [
  { id: 'g1', maxStarts: 2, perSeconds: 60 },
  { id: 'g2', maxStarts: 1, perSeconds: 30 },
];

/** Ready printers are common enough that scarce starts and competing printers get exercised. */
const mostly = fc.constantFrom(true, true, true, false);

const printerArb = (i: number) =>
  fc.record({
    id: fc.constant(`p${i}`),
    bed: fc.constantFrom(...BEDS),
    nozzleMm: fc.constantFrom(0.4, 0.6),
    loaded: fc.option(
      fc.record({ material: fc.constantFrom(...MATERIALS), colour: fc.constantFrom(...COLOURS) }),
      { nil: null },
    ),
    materials: fc.option(fc.subarray(MATERIALS, { minLength: 1 }), { nil: undefined }),
    enclosed: fc.boolean(),
    group: fc.constantFrom(null, null, ...GROUPS),
    online: mostly,
    idle: mostly,
    bedClear: mostly,
    paused: fc.constantFrom(undefined, undefined, undefined, undefined, true),
    retired: fc.constantFrom(
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      true,
    ),
    lastStartAt: fc.oneof(fc.constant(null), fc.integer({ min: NOW - 120_000, max: NOW })),
  });

const farmArb = fc
  .integer({ min: 1, max: 10 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => printerArb(i))));

const jobArb = (i: number, printerCount: number) =>
  fc.record({
    id: fc.constant(`j${i}`),
    // Mostly parts that fit most beds, some that fit only the big one or none.
    size: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          x: fc.integer({ min: 5, max: 160 }),
          y: fc.integer({ min: 5, max: 160 }),
          z: fc.integer({ min: 1, max: 160 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          x: fc.integer({ min: 5, max: 360 }),
          y: fc.integer({ min: 5, max: 360 }),
          z: fc.integer({ min: 1, max: 360 }),
        }),
      },
    ),
    material: fc.constantFrom(...MATERIALS),
    colour: fc.constantFrom(...COLOURS, ANY_COLOUR),
    nozzleMm: fc.constantFrom(0.4, 0.6),
    printSeconds: fc.integer({ min: 60, max: 50_000 }),
    orderPlacedAt: fc.integer({ min: NOW - 80 * HOUR, max: NOW }),
    dueAt: fc.oneof(fc.constant(null), fc.integer({ min: NOW - 10 * HOUR, max: NOW + 100 * HOUR })),
    // Mostly normal jobs, so that overdue work (which takes starts first) does not crowd out the rest.
    sellerPriority: fc.constantFrom(0, 0, 0, 1, 2, 3),
    rush: fc.constantFrom(false, false, false, true),
    pinnedPrinterId: fc.oneof(
      { weight: 6, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: printerCount }).map((p) => `p${p}`) },
    ),
  });

const scenarioArb = farmArb.chain((printers) =>
  fc.record({
    printers: fc.constant(printers as PlannerPrinter[]),
    jobs: fc
      .integer({ min: 0, max: 60 })
      .chain((n) =>
        fc.tuple(...Array.from({ length: n }, (_, i) => jobArb(i, printers.length))),
      ) as fc.Arbitrary<PlannerJob[]>,
  }),
);

const decide = (s: { printers: PlannerPrinter[]; jobs: PlannerJob[] }) => {
  const queue = new DispatchQueue(s.jobs, DEFAULT_PLANNER_OPTIONS);
  return { queue, decision: planDispatch(s.printers, queue, NOW) };
};
const fitsIgnoringSpool = (j: PlannerJob, p: PlannerPrinter) =>
  j.nozzleMm === p.nozzleMm &&
  (!p.materials || p.materials.includes(j.material)) &&
  (p.enclosed || j.material !== 'ABS') &&
  fitsBed(j.size, p.bed) &&
  (j.pinnedPrinterId === null || j.pinnedPrinterId === p.id);

describe('dispatch properties (fast-check)', () => {
  const runs = { numRuns: 400, seed: 20261125 };

  it('assigns a job only to a ready printer where everything matches once the spool is as the decision says', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { decision } = decide(s);
        for (const a of decision.assignments) {
          const p = s.printers.find((x) => x.id === a.printerId)!;
          const j = s.jobs.find((x) => x.id === a.jobId)!;
          expect(p && j).toBeTruthy();
          expect(isReady(p)).toBe(true);
          expect(canRunOn(j, { ...p, loaded: a.spoolChange ?? p.loaded })).toBe(true);
          if (a.spoolChange === null) expect(canRunOn(j, p)).toBe(true);
          if (a.spoolChange !== null) expect(canRunOn(j, p)).toBe(false);
          if (j.pinnedPrinterId !== null) expect(a.printerId).toBe(j.pinnedPrinterId);
        }
      }),
      runs,
    );
  });

  it('never puts two jobs on one printer or one job on two printers, and keeps to the stagger', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { decision } = decide(s);
        const printers = decision.assignments.map((a) => a.printerId);
        const jobs = decision.assignments.map((a) => a.jobId);
        expect(new Set(printers).size).toBe(printers.length);
        expect(new Set(jobs).size).toBe(jobs.length);
        for (const group of GROUPS) {
          const members = s.printers.filter((p) => p.group?.id === group.id);
          const recent = members.filter(
            (p) => p.lastStartAt !== null && p.lastStartAt > NOW - group.perSeconds * 1000,
          ).length;
          const started = decision.assignments.filter((a) => members.some((p) => p.id === a.printerId)).length;
          expect(started).toBeLessThanOrEqual(Math.max(0, group.maxStarts - recent));
        }
      }),
      runs,
    );
  });

  it('respects priority within a compatible set: no waiting job the printer could run as loaded is more urgent than the one it got', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { decision, queue } = decide(s);
        const assigned = new Set(decision.assignments.map((a) => a.jobId));
        const key = (j: PlannerJob) => priorityKey(j, queue.options);
        const seq = (j: PlannerJob) => s.jobs.indexOf(j);
        for (const a of decision.assignments) {
          if (a.rule !== 'loaded-spool' && a.rule !== 'pinned') continue;
          const p = s.printers.find((x) => x.id === a.printerId)!;
          const got = s.jobs.find((x) => x.id === a.jobId)!;
          for (const other of s.jobs) {
            if (assigned.has(other.id)) continue;
            const candidate =
              a.rule === 'pinned'
                ? other.pinnedPrinterId === p.id && fitsIgnoringSpool(other, p)
                : canRunOn(other, p);
            if (!candidate) continue;
            const moreUrgent = key(other) < key(got) || (key(other) === key(got) && seq(other) < seq(got));
            expect(moreUrgent, `${other.id} waits while ${got.id} runs on ${p.id}`).toBe(false);
          }
          // A printer with work pinned to it takes pinned work first.
          if (a.rule === 'loaded-spool')
            expect(
              s.jobs.some(
                (o) => !assigned.has(o.id) && o.pinnedPrinterId === p.id && fitsIgnoringSpool(o, p),
              ),
            ).toBe(false);
        }
      }),
      runs,
    );
  });

  it('gives a scarce start to the most urgent work: no printer left waiting could run something more urgent than a job started', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { decision, queue } = decide(s);
        const used = new Set(decision.assignments.map((a) => a.printerId));
        const assigned = new Set(decision.assignments.map((a) => a.jobId));
        const key = (j: PlannerJob) => priorityKey(j, queue.options);
        const seq = (j: PlannerJob) => s.jobs.indexOf(j);
        const started = decision.assignments
          .filter((a) => a.rule === 'loaded-spool')
          .map((a) => ({ got: s.jobs.find((j) => j.id === a.jobId)!, on: s.printers.find((p) => p.id === a.printerId)! }));
        for (const q of s.printers.filter((p) => isReady(p) && !used.has(p.id))) {
          // A printer its group's stagger held back competes only with its own group's starts.
          const heldBack = q.group && decision.startsLeft.get(q.group.id) === 0;
          for (const waiting of s.jobs.filter((j) => !assigned.has(j.id) && canRunOn(j, q))) {
            for (const { got, on } of started) {
              if (heldBack && on.group?.id !== q.group!.id) continue;
              const moreUrgent =
                key(waiting) < key(got) || (key(waiting) === key(got) && seq(waiting) < seq(got));
              expect(
                moreUrgent,
                `${waiting.id} could start on ${q.id} and is more urgent than ${got.id}`,
              ).toBe(false);
            }
          }
        }
      }),
      runs,
    );
  });

  it('leaves no ready printer unused while the stagger has room and a job it could ever print waits', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { decision } = decide(s);
        const usedPrinters = new Set(decision.assignments.map((a) => a.printerId));
        const assigned = new Set(decision.assignments.map((a) => a.jobId));
        const roomFor = (p: PlannerPrinter) => !p.group || decision.startsLeft.get(p.group.id)! > 0;
        for (const p of s.printers.filter((x) => isReady(x) && roomFor(x) && !usedPrinters.has(x.id))) {
          const waiting = s.jobs.filter((j) => !assigned.has(j.id) && fitsIgnoringSpool(j, p));
          expect(
            waiting.map((j) => j.id),
            `printer ${p.id} left idle`,
          ).toEqual([]);
        }
      }),
      runs,
    );
  });

  it('is deterministic, ignores the order printers are listed in, and changes neither input', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const before = JSON.stringify(s);
        const { decision, queue } = decide(s);
        const again = planDispatch([...s.printers].reverse(), queue, NOW);
        expect(again).toEqual(decision);
        expect(queue.size).toBe(s.jobs.length);
        expect(JSON.stringify(s)).toBe(before);
      }),
      runs,
    );
  });

  it('explains every job no printer could ever take, and only those', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        for (const j of s.jobs) {
          // Paused printers count (they come back), retired ones do not.
          const anyFits = s.printers.some((p) => !p.retired && fitsIgnoringSpool(j, p));
          const reason = unplaceable(j, s.printers);
          expect(reason === null, `${j.id}: ${reason}`).toBe(anyFits);
          if (reason) expect(reason.length).toBeGreaterThan(20);
        }
      }),
      runs,
    );
  });
});

describe('several parts per plate (rule 7)', () => {
  const plates = { partsPerPlate: 16 };
  const small = (id: string, over: Partial<PlannerJob> = {}) =>
    job(id, { size: { x: 30, y: 30, z: 20 }, printSeconds: 1200, plateKey: 'standard-0.2', ...over });
  const plateOf = (d: ReturnType<typeof plan>, jobId: string) =>
    d.assignments.find((a) => a.jobId === jobId)?.plate?.map((p) => p.id);

  it('prints every part alone unless plates are switched on', () => {
    const d = plan([printer('p1')], [small('a'), small('b'), small('c')]);
    expect(d.assignments).toHaveLength(1);
    expect(d.assignments[0]!.plate).toBeUndefined();
  });

  it('packs queued parts of the same material, colour and settings onto the lead’s plate, across orders, in priority order', () => {
    const jobs = [
      small('a', { orderPlacedAt: NOW - 5 * HOUR }),
      small('b', { orderPlacedAt: NOW - 4 * HOUR }),
      small('c', { orderPlacedAt: NOW - 3 * HOUR }),
      small('red', { colour: 'red' }),
      small('fine', { plateKey: 'fine-0.1' }),
      small('petg', { material: 'PETG' }),
    ];
    const d = plan([printer('p1')], jobs, plates);
    expect(d.assignments).toHaveLength(1);
    expect(d.assignments[0]!.jobId).toBe('a');
    expect(plateOf(d, 'a')).toEqual(['a', 'b', 'c']);
  });

  it('adds "any colour" parts of the material to a coloured plate', () => {
    const d = plan([printer('p1')], [small('a'), small('any', { colour: ANY_COLOUR })], plates);
    expect(plateOf(d, 'a')).toEqual(['a', 'any']);
  });

  it('never leaves a part out of a plate it was put on: a plate holds only what the packer placed', () => {
    const jobs = Array.from({ length: 40 }, (_, i) =>
      small(`j${i}`, { size: { x: 50, y: 50, z: 20 }, seq: i }),
    );
    const d = plan([printer('p1')], jobs, { partsPerPlate: 40 });
    const plate = d.assignments[0]!.plate!;
    // 240 × 200 usable with 10 mm gaps: 4 × 3 parts of 50 mm.
    expect(plate).toHaveLength(12);
    expect(new Set(plate.map((p) => p.id)).size).toBe(12);
  });

  it('gives no part to two plates when several printers fill theirs in one decision', () => {
    const jobs = Array.from({ length: 30 }, (_, i) => small(`j${i}`, { seq: i }));
    const d = plan([printer('p1'), printer('p2'), printer('p3')], jobs, { partsPerPlate: 8 });
    const all = d.assignments.flatMap((a) => a.plate?.map((p) => p.id) ?? [a.jobId]);
    expect(all).toHaveLength(24);
    expect(new Set(all).size).toBe(24);
  });

  it('lets no part miss its deadline for a fuller plate: the plate stops growing before the earliest deadline', () => {
    // Each part prints 20 min; the lead is due in 2 h 30 with 1 h in hand: at most 4 parts (80 min).
    const lead = small('due-soon', { dueAt: NOW + 2.5 * HOUR });
    const rest = Array.from({ length: 10 }, (_, i) => small(`j${i}`, { seq: 10 + i }));
    const d = plan([printer('p1')], [lead, ...rest], plates);
    expect(d.assignments[0]!.jobId).toBe('due-soon');
    expect(d.assignments[0]!.plate).toHaveLength(4);
  });

  it('leaves a companion out when the plate would make it late, and still takes later ones that fit', () => {
    const lead = small('lead', { printSeconds: 3 * 3600, orderPlacedAt: NOW - 30 * HOUR });
    const tight = small('tight', { dueAt: NOW + 3.5 * HOUR, orderPlacedAt: NOW });
    const loose = small('loose', { orderPlacedAt: NOW });
    const d = plan([printer('p1')], [lead, tight, loose], plates);
    // The tight one is most urgent, so it leads; with a 3 h lead part beside it, it would end after its deadline.
    expect(d.assignments[0]!.jobId).toBe('tight');
    expect(plateOf(d, 'tight')).toEqual(['tight', 'loose']);
  });

  it('never holds a late part up with parts that are on time', () => {
    const late = small('late', { orderPlacedAt: NOW - 80 * HOUR });
    const d = plan([printer('p1')], [late, small('b'), small('c')], plates);
    expect(d.assignments[0]!.jobId).toBe('late');
    expect(d.assignments[0]!.plate).toBeUndefined();
  });

  it('lets parts that are late anyway share a plate, so a backlog clears rather than printing one by one', () => {
    const late = Array.from({ length: 3 }, (_, i) => small(`late${i}`, { orderPlacedAt: NOW - (80 + i) * HOUR }));
    const d = plan([printer('p1')], [...late, small('on-time')], plates);
    expect(plateOf(d, 'late2')).toEqual(['late2', 'late1', 'late0']);
  });

  it('prints a pinned part alone, and never joins parts without print settings', () => {
    const pinned = small('pinned', { pinnedPrinterId: 'p1' });
    expect(plan([printer('p1')], [pinned, small('b')], plates).assignments[0]!.plate).toBeUndefined();
    const unknown = plan(
      [printer('p1')],
      [small('a', { plateKey: null }), small('b', { plateKey: null })],
      plates,
    );
    expect(unknown.assignments[0]!.plate).toBeUndefined();
  });

  it('keeps the loaded spool able to print the whole plate', () => {
    const d = plan(
      [printer('p1', { loaded: { material: 'PLA', colour: 'black', gramsLeft: 100 } })],
      Array.from({ length: 8 }, (_, i) => small(`j${i}`, { grams: 20, seq: i })),
      plates,
    );
    // 4 × 20 g = 80 g needs 80 · 1.1 + 5 = 93 g; a fifth would need 115 g.
    expect(d.assignments[0]!.plate).toHaveLength(4);
  });
});
