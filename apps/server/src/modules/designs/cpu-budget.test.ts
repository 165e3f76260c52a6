import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { watchCpuBudget } from './cpu-budget.ts';

/** A hand-driven clock and timer: the test says how much wall and CPU time pass. */
function fakeTime() {
  let wall = 0;
  let cpu = 0;
  let pending: { at: number; run: () => void } | undefined;
  return {
    now: () => wall,
    readCpuMs: async () => cpu,
    setTimer(run: () => void, ms: number) {
      const timer = { at: wall + ms, run };
      pending = timer;
      return { cancel: () => void (pending === timer && (pending = undefined)) };
    },
    /** Advances wall time by `ms`, during which the work uses `share` of a core; fires a due timer. */
    async pass(ms: number, share: number) {
      wall += ms;
      cpu += ms * share;
      while (pending && pending.at <= wall) {
        const due = pending;
        pending = undefined;
        due.run();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

describe('CPU-time budget (unit, fake clock)', () => {
  it('does not end work that waited for a core: 3 budgets of wall-clock time at 30 % CPU', async () => {
    const time = fakeTime();
    const exceeded: string[] = [];
    watchCpuBudget({ ...time, budgetMs: 1000, wallCapMs: 10_000, onExceeded: (r) => exceeded.push(r) });
    for (let i = 0; i < 30; i++) await time.pass(100, 0.3);
    expect(exceeded).toEqual([]);
  });

  it('ends work once it has used its budget of CPU, however long that took on the wall clock', async () => {
    const time = fakeTime();
    const exceeded: { reason: string; at: number }[] = [];
    watchCpuBudget({ ...time, budgetMs: 1000, wallCapMs: 10_000, minCheckMs: 10, onExceeded: (reason) => exceeded.push({ reason, at: time.now() }) });
    for (let i = 0; i < 400 && exceeded.length === 0; i++) await time.pass(10, 0.5);
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.reason).toBe('cpu');
    // 1,000 ms of CPU at half a core is 2,000 ms of wall clock; a wall-clock budget would have ended it at 1,000.
    expect(exceeded[0]!.at).toBeGreaterThanOrEqual(2000);
    expect(exceeded[0]!.at).toBeLessThanOrEqual(2020);
  });

  it('ends work that uses no CPU but never finishes at the wall-clock cap', async () => {
    const time = fakeTime();
    const exceeded: string[] = [];
    watchCpuBudget({ ...time, budgetMs: 1000, wallCapMs: 5000, onExceeded: (r) => exceeded.push(r) });
    for (let i = 0; i < 49; i++) await time.pass(100, 0);
    expect(exceeded).toEqual([]);
    await time.pass(100, 0);
    expect(exceeded).toEqual(['wall']);
  });

  it('says nothing after stop()', async () => {
    const time = fakeTime();
    const exceeded: string[] = [];
    const watch = watchCpuBudget({ ...time, budgetMs: 1000, wallCapMs: 10_000, onExceeded: (r) => exceeded.push(r) });
    await time.pass(500, 1);
    watch.stop();
    await time.pass(5000, 1);
    expect(exceeded).toEqual([]);
  });
});

describe('CPU-time budget on real worker threads', () => {
  const workers: Worker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.terminate()));
  });
  const start = (code: string) => {
    const worker = new Worker(code, { eval: true });
    workers.push(worker);
    return worker;
  };
  const cpuMsOf = (worker: Worker) => async () => {
    const { user, system } = await worker.cpuUsage();
    return (user + system) / 1000;
  };

  it('ends a spinning thread only after it used its CPU budget, while other threads take the cores', { timeout: 30_000 }, async () => {
    // Hogs: more spinning threads than this machine has cores, so the watched one waits for a core.
    for (let i = 0; i < 3; i++) start('for (;;) {}');
    const spinner = start('for (;;) {}');
    const startedAt = performance.now();
    const reason = await new Promise<string>((resolve) => watchCpuBudget({ readCpuMs: cpuMsOf(spinner), budgetMs: 400, wallCapMs: 20_000, onExceeded: resolve }));
    const used = await cpuMsOf(spinner)();
    expect(reason).toBe('cpu');
    // The thread's whole life (start-up included) is at least the budget: it was not cut short by the wall clock.
    expect(used).toBeGreaterThanOrEqual(400);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(400);
  });

  it('leaves alone a thread that waits (no CPU) for twice its budget and then finishes', { timeout: 30_000 }, async () => {
    const sleeper = start(`
      const { parentPort } = require('node:worker_threads');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 800);
      parentPort.postMessage('done');
    `);
    const exceeded: string[] = [];
    const watch = watchCpuBudget({ readCpuMs: cpuMsOf(sleeper), budgetMs: 400, wallCapMs: 4000, onExceeded: (r) => exceeded.push(r) });
    await new Promise((resolve) => sleeper.once('message', resolve));
    watch.stop();
    expect(exceeded).toEqual([]);
  });
});
