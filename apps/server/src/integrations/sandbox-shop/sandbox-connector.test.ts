import { describe, expect, it } from 'vitest';
import { createSandboxConnector } from './sandbox-connector.ts';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const credentials = (openedAt: number) => ({
  externalShopId: 'sbx-test',
  accessToken: null,
  refreshToken: null,
  tokenExpiresAt: null,
  settings: { openedAt: new Date(openedAt).toISOString() },
});

describe('the sandbox shop', () => {
  it('never places an order in the future, even when synced faster than one order a minute', async () => {
    const sandbox = createSandboxConnector({ now: () => NOW });
    // The shop opened 10 s ago: order 1 would be "placed" 50 s from now, order 5 four minutes from now.
    let cursor: string | null = null;
    for (let call = 0; call < 5; call++) {
      const page = await sandbox.fetchOrders(credentials(NOW - 10_000), cursor);
      for (const order of page.orders) expect(order.placedAt.getTime(), order.externalId).toBeLessThanOrEqual(NOW);
      cursor = page.nextCursor;
    }
    // A shop open for a long time keeps its orders a minute apart, in the past.
    const old = await sandbox.fetchOrders(credentials(NOW - 3_600_000), '3');
    expect(old.orders.map((o) => o.placedAt.getTime())).toEqual([NOW - 3_600_000 + 3 * 60_000, NOW - 3_600_000 + 4 * 60_000]);
  });

  it('simulates a different order on every call, even with the same sequence (one clock tick)', async () => {
    const sandbox = createSandboxConnector({ now: () => NOW });
    const orders = await Promise.all(
      Array.from({ length: 30 }, () => sandbox.simulateOrder(credentials(NOW), { sequence: NOW, includeUnmatched: false })),
    );
    expect(new Set(orders.map((o) => o.externalId)).size).toBe(30);
    for (const order of orders) {
      expect(order.externalId).toMatch(new RegExp(`^SBX-SIM-${NOW}-[A-Za-z0-9_-]{8}$`));
      expect(order.placedAt.getTime()).toBe(NOW);
    }
  });
});
