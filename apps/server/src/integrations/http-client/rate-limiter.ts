/**
 * A small spacing limiter: requests with the same key start at least 1/ratePerSecond apart.
 * In-process only (one worker process per deployment today); the vendor's 429 + Retry-After,
 * handled by the http client, is the backstop when several processes share an app key.
 */
export interface RateLimiter {
  acquire(key: string): Promise<void>;
}

export const createRateLimiter = (options: {
  ratePerSecond: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}): RateLimiter => {
  const intervalMs = 1000 / options.ratePerSecond;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const nextSlot = new Map<string, number>();

  return {
    async acquire(key) {
      const current = now();
      const slot = Math.max(current, nextSlot.get(key) ?? 0);
      nextSlot.set(key, slot + intervalMs);
      if (nextSlot.size > 1000) {
        for (const [k, next] of nextSlot) if (next < current) nextSlot.delete(k);
      }
      if (slot > current) await sleep(slot - current);
    },
  };
};
