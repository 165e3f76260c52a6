import { z } from 'zod';

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A time needs its zone (Z or ±hh:mm): without one it would mean the server's local time. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A day of the calendar that exists. `Date.parse` answers NaN for month 13 and rolls 2026-02-30 over
 * to March: both are refused here, and without calling toISOString on an invalid date (which throws).
 */
export function isCalendarDay(value: string): boolean {
  if (!ISO_DAY.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
}

/** A calendar day, or a time with its zone whose day exists. */
export function isIsoDateOrTime(value: string): boolean {
  return isCalendarDay(value) || (ISO_TIME.test(value) && isCalendarDay(value.slice(0, 10)) && !Number.isNaN(Date.parse(value)));
}

/** `YYYY-MM-DD`, a day that exists, as a Date at 00:00 UTC. */
export const calendarDaySchema = z
  .string()
  .trim()
  .refine(isCalendarDay, 'Use a date that exists, like 2025-03-15')
  .transform((value) => new Date(`${value}T00:00:00Z`));

/** A day (2026-11-01) or a time with its zone (2026-11-01T00:00:00Z), kept as the string given. */
export const isoDateOrTimeSchema = z
  .string()
  .trim()
  .refine(isIsoDateOrTime, 'Dates must be ISO 8601 and exist, like 2026-11-01 or 2026-11-01T00:00:00Z');
