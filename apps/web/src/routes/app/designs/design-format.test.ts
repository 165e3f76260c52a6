import type { Quote } from '@layerline/contracts';
import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDimensions,
  formatPrintTime,
  formatQuoteLine,
  parsePrintTime,
} from './design-format.ts';

describe('design formatting', () => {
  it('prints times as h:mm', () => {
    expect(formatPrintTime(0)).toBe('0:00');
    expect(formatPrintTime(90 * 60)).toBe('1:30');
    expect(formatPrintTime(59)).toBe('0:01');
    expect(formatPrintTime(25 * 3600 + 5 * 60)).toBe('25:05');
  });

  it('reads times typed as h:mm or 1h 30m', () => {
    expect(parsePrintTime('1:30')).toBe(5400);
    expect(parsePrintTime(' 2h 5m ')).toBe(7500);
    expect(parsePrintTime('45m')).toBe(2700);
    expect(parsePrintTime('1:75')).toBeNull();
    expect(parsePrintTime('')).toBeNull();
    expect(parsePrintTime('soon')).toBeNull();
  });

  it('prints sizes and dimensions', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(200 * 1024 * 1024)).toBe('200 MB');
    expect(formatDimensions([20, 20.04, 120.5])).toBe('20.0 × 20.0 × 121 mm');
  });

  it('summarises a quote in one line', () => {
    const quote: Quote = {
      basis: 'estimate',
      basisNote: '',
      grams: 35.25,
      printSeconds: 5400,
      costUsd: 4.2,
      breakdown: [],
      computedAt: '',
    };
    expect(formatQuoteLine(quote)).toBe('$4.20 · 35.3 g · 1:30');
  });
});
