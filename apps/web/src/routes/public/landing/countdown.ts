/** What the launch countdown shows at a given moment: the time left, or that we have launched. */
export type CountdownParts =
  { launched: true } | { launched: false; days: number; hours: number; minutes: number; seconds: number };

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * Splits the time from `now` to `target` into whole days, hours, minutes and seconds.
 * Partial seconds round up, so the clock never reads 0:00:00:00 while time is still left
 * and flips to "launched" exactly at the target.
 */
export function countdownParts(now: Date | number, target: Date | number): CountdownParts {
  const remainingMs = toMs(target) - toMs(now);
  if (remainingMs <= 0) return { launched: true };
  const totalSeconds = Math.ceil(remainingMs / SECOND_MS);
  const totalMs = totalSeconds * SECOND_MS;
  return {
    launched: false,
    days: Math.floor(totalMs / DAY_MS),
    hours: Math.floor((totalMs % DAY_MS) / HOUR_MS),
    minutes: Math.floor((totalMs % HOUR_MS) / MINUTE_MS),
    seconds: Math.floor((totalMs % MINUTE_MS) / SECOND_MS),
  };
}

function toMs(value: Date | number): number {
  return typeof value === 'number' ? value : value.getTime();
}
