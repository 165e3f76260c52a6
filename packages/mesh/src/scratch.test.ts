import { describe, expect, it } from 'vitest';
import { leaseScratch } from './scratch.ts';

describe('scratch buffer', () => {
  it('is reused once released, never shared while leased, and grows on demand', () => {
    const first = leaseScratch(1 << 20);
    const concurrent = leaseScratch(1 << 20);
    expect(concurrent.buffer).not.toBe(first.buffer);
    concurrent.release();
    first.release();
    first.release(); // a second release must not free a later lease

    const again = leaseScratch(1 << 16);
    expect(again.buffer).toBe(first.buffer);
    const whileLeased = leaseScratch(1 << 16);
    expect(whileLeased.buffer).not.toBe(again.buffer);
    whileLeased.release();
    again.release();

    const bigger = leaseScratch(4 << 20);
    expect(bigger.buffer.byteLength).toBeGreaterThanOrEqual(4 << 20);
    expect(bigger.buffer).not.toBe(first.buffer);
    bigger.release();
    const last = leaseScratch(1 << 20);
    expect(last.buffer).toBe(bigger.buffer);
    last.release();
  });
});
