import { describe, expect, it } from 'vitest';
import { calendarDaySchema, isCalendarDay, isIsoDateOrTime } from './dates.ts';

describe('dates', () => {
  it('refuses days that do not exist, without throwing', () => {
    for (const value of ['2026-13-45', '2026-02-30', '2026-00-10', '2025-02-29', '0000-00-00', '2026-1-1', '']) {
      expect(isCalendarDay(value), value).toBe(false);
      expect(isIsoDateOrTime(value), value).toBe(false);
    }
    expect(isIsoDateOrTime('2026-02-30T25:61:00Z')).toBe(false);
    expect(isIsoDateOrTime('2026-13-45T00:00:00Z')).toBe(false);
    expect(calendarDaySchema.safeParse('2026-13-45').success).toBe(false);
  });

  it('accepts real days and zoned times', () => {
    expect(isCalendarDay('2024-02-29')).toBe(true);
    expect(isIsoDateOrTime('2026-11-01')).toBe(true);
    expect(isIsoDateOrTime('2026-11-01T10:00:00+02:00')).toBe(true);
    expect(isIsoDateOrTime('2026-11-01T10:00')).toBe(false);
    expect(calendarDaySchema.parse('2025-03-15')).toEqual(new Date('2025-03-15T00:00:00Z'));
  });
});
