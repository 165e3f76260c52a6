import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '@layerline/contracts';
import { ORDER_TRANSITIONS, assertTransition, canTransition, initialStatus } from './order-lifecycle.ts';

describe('the order lifecycle', () => {
  it('covers every status, and ends only in delivered or cancelled', () => {
    expect(Object.keys(ORDER_TRANSITIONS).sort()).toEqual([...ORDER_STATUSES].sort());
    const terminal = ORDER_STATUSES.filter((s) => ORDER_TRANSITIONS[s].length === 0);
    expect(terminal.sort()).toEqual(['cancelled', 'delivered']);
  });

  it('never moves backwards past shipping, and cannot cancel what has shipped', () => {
    expect(canTransition('shipped', 'cancelled')).toBe(false);
    expect(canTransition('delivered', 'shipped')).toBe(false);
    expect(canTransition('received', 'shipped')).toBe(false);
    expect(() => assertTransition('packed', 'received')).toThrow(/packed cannot become received/);
  });

  it('reaches every status from received', () => {
    const seen = new Set(['received']);
    const queue = ['received'] as (typeof ORDER_STATUSES)[number][];
    while (queue.length) {
      for (const next of ORDER_TRANSITIONS[queue.shift()!]) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
    expect([...seen].sort()).toEqual([...ORDER_STATUSES].sort());
  });

  it('holds orders with unmatched SKUs, naming them', () => {
    expect(initialStatus([])).toEqual({ status: 'accepted', holdReason: null });
    const held = initialStatus(['MUG-RED', 'VASE-XL']);
    expect(held.status).toBe('on_hold');
    expect(held.holdReason).toContain('“MUG-RED”, “VASE-XL”');
  });
});
