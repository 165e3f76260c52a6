import { describe, expect, it } from 'vitest';
import { LAUNCH_AT } from '@layerline/contracts';
import { countdownParts } from './countdown.ts';

describe('countdownParts', () => {
  it('targets 2025-03-15 19:00 at UTC−5, which is midnight UTC', () => {
    expect(LAUNCH_AT.toISOString()).toBe('2025-03-16T00:00:00.000Z');
  });

  it('splits the time left into days, hours, minutes and seconds', () => {
    const now = new Date('2025-03-14T22:58:55Z'); // 1 day, 1 hour, 1 minute and 5 seconds before launch
    expect(countdownParts(now, LAUNCH_AT)).toEqual({
      launched: false,
      days: 1,
      hours: 1,
      minutes: 1,
      seconds: 5,
    });
  });

  it('rounds a partial second up so it never shows all zeros before the launch', () => {
    expect(countdownParts(LAUNCH_AT.getTime() - 1, LAUNCH_AT)).toEqual({
      launched: false,
      days: 0,
      hours: 0,
      minutes: 0,
      seconds: 1,
    });
  });

  it('counts whole days far ahead', () => {
    expect(countdownParts(LAUNCH_AT.getTime() - 100 * 86_400_000, LAUNCH_AT)).toEqual({
      launched: false,
      days: 100,
      hours: 0,
      minutes: 0,
      seconds: 0,
    });
  });

  it('has launched at the target and any time after (the site went live in 2025)', () => {
    expect(countdownParts(LAUNCH_AT, LAUNCH_AT)).toEqual({ launched: true });
    expect(countdownParts(new Date('2026-11-21T12:00:00Z'), LAUNCH_AT)).toEqual({ launched: true });
  });
});
