/**
 * A time budget counted in the CPU time of the work itself, not in wall-clock time: on a loaded
 * machine a thread that waits for a core is not charged for the wait, so a legitimate model is not
 * refused because other work was running. (A wall-clock budget of 30 s refused models that needed
 * 12 s of CPU on a machine shared with slicing and the API.)
 *
 * One thread's CPU time grows no faster than the wall clock, so nothing is polled: the first check
 * is one budget after the start, and each check that finds budget left waits for exactly what is
 * left (at least `minCheckMs`). A wall-clock cap (a multiple of the budget) still ends work that
 * waits for ever without using CPU.
 */
export interface CpuBudget {
  /** CPU time of the work so far, in ms, from any fixed origin (e.g. a worker thread's cpuUsage()). */
  readCpuMs(): Promise<number>;
  budgetMs: number;
  wallCapMs: number;
  /** Called once, when the CPU budget or the wall-clock cap is passed (not after stop()). */
  onExceeded(reason: 'cpu' | 'wall'): void;
  minCheckMs?: number;
  /** For tests: the clock (ms) and the timer; default performance.now and setTimeout. */
  now?: () => number;
  setTimer?: (run: () => void, ms: number) => { cancel(): void };
}

export interface CpuBudgetWatch {
  stop(): void;
}

const realTimer = (run: () => void, ms: number) => {
  const timer = setTimeout(run, ms);
  return { cancel: () => clearTimeout(timer) };
};

export function watchCpuBudget(budget: CpuBudget): CpuBudgetWatch {
  const now = budget.now ?? (() => performance.now());
  const setTimer = budget.setTimer ?? realTimer;
  const minCheckMs = budget.minCheckMs ?? 25;
  const startedAt = now();
  // A thread not running yet has used no CPU; one that is gone fails the later reads, and check() stops quietly.
  const baseline = budget.readCpuMs().catch(() => 0);
  let stopped = false;
  let timer: { cancel(): void } | undefined;

  async function check(): Promise<void> {
    timer = undefined;
    let used: number;
    try {
      used = (await budget.readCpuMs()) - (await baseline);
    } catch {
      return; // the thread is gone: whoever ended it settles the work
    }
    if (stopped) return;
    const wall = now() - startedAt;
    if (used >= budget.budgetMs) return exceed('cpu');
    if (wall >= budget.wallCapMs) return exceed('wall');
    arm(Math.max(minCheckMs, Math.min(budget.budgetMs - used, budget.wallCapMs - wall)));
  }

  function exceed(reason: 'cpu' | 'wall'): void {
    stopped = true;
    budget.onExceeded(reason);
  }

  function arm(ms: number): void {
    timer = setTimer(() => void check(), ms);
  }

  arm(Math.min(budget.budgetMs, budget.wallCapMs));
  return {
    stop() {
      stopped = true;
      timer?.cancel();
    },
  };
}
