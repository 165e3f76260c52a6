/** Runs `task` when the browser is idle, or after `timeoutMs` where requestIdleCallback is missing (Safari). */
export function whenIdle(task: () => void, timeoutMs = 2000): void {
  if (typeof window.requestIdleCallback === 'function') {
    window.requestIdleCallback(() => task(), { timeout: timeoutMs });
  } else {
    window.setTimeout(task, timeoutMs);
  }
}
