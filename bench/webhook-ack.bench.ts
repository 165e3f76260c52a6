/**
 * WH-7: how fast a Shopify order webhook is acknowledged (verified, stored, queued) compared with
 * the bare health route, on the embedded database or on PostgreSQL (set DATABASE_URL).
 *   npx node bench/webhook-ack.bench.ts [--deliveries 400] [--concurrency 10]
 */
import { createHmac, randomUUID } from 'node:crypto';
import { shopConnection } from '../apps/server/src/db/schema.ts';
import { startTestApp } from '../apps/server/test/test-app.ts';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const DELIVERIES = arg('deliveries', 400);
const CONCURRENCY = arg('concurrency', 10);
const SECRET = 'bench-secret';
const SHOP = 'layerline-bench.myshopify.com';
const TARGET_P99_MS = 1000;

const app = await startTestApp({ SHOPIFY_API_KEY: 'bench-key', SHOPIFY_API_SECRET: SECRET });
try {
  const seller = await app.signUp({ role: 'beta' });
  await app.context.db.insert(shopConnection).values({ ownerId: seller.userId, platform: 'shopify', externalShopId: SHOP, name: 'Bench store' });

  const body = (n: number) =>
    JSON.stringify({
      id: 5_000_000 + n,
      admin_graphql_api_id: `gid://shopify/Order/${5_000_000 + n}`,
      created_at: new Date().toISOString(),
      currency: 'USD',
      total_price: '24.50',
      customer: { first_name: 'Ada', last_name: 'Lovelace' },
      shipping_address: { name: 'Ada Lovelace', address1: '1 Analytical Way', city: 'Portland', province_code: 'OR', zip: '97201', country_code: 'US' },
      line_items: [{ id: 1, admin_graphql_api_id: `gid://shopify/LineItem/${n}`, sku: 'BENCH-SKU', quantity: 1, price: '24.50', title: 'Bench item', requires_shipping: true }],
    });

  async function timed(count: number, send: (n: number) => Promise<Response>): Promise<number[]> {
    const times: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          const n = next++;
          const started = performance.now();
          const response = await send(n);
          await response.arrayBuffer();
          if (!response.ok) throw new Error(`delivery ${n}: ${response.status}`);
          times.push(performance.now() - started);
        }
      }),
    );
    return times.sort((a, b) => a - b);
  }

  const health = await timed(DELIVERIES, () => fetch(new URL('/api/health', app.baseUrl)));
  const acks = await timed(DELIVERIES, (n) => {
    const raw = body(n);
    return fetch(new URL('/api/webhooks/shopify', app.baseUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-hmac-sha256': createHmac('sha256', SECRET).update(raw).digest('base64'),
        'x-shopify-topic': 'orders/create',
        'x-shopify-shop-domain': SHOP,
        'x-shopify-webhook-id': randomUUID(),
      },
      body: raw,
    });
  });

  const pct = (times: number[], p: number) => times[Math.min(times.length - 1, Math.ceil(times.length * p) - 1)]!;
  const row = (name: string, times: number[]) =>
    `${name}\t${pct(times, 0.5).toFixed(1)}\t${pct(times, 0.95).toFixed(1)}\t${pct(times, 0.99).toFixed(1)}\t${times.at(-1)!.toFixed(1)}`;
  console.log(`Webhook ACK on ${app.databaseKind}: ${DELIVERIES} requests, ${CONCURRENCY} at a time\n`);
  console.log('route\tp50 ms\tp95 ms\tp99 ms\tmax ms');
  console.log(row('GET /api/health (baseline)', health));
  console.log(row('POST /api/webhooks/shopify', acks));
  const p99 = pct(acks, 0.99);
  console.log(`\nratio p99 webhook / health: ${(p99 / pct(health, 0.99)).toFixed(1)}x`);
  console.log(`target WH-7: p99 < ${TARGET_P99_MS} ms -> ${p99 < TARGET_P99_MS ? 'PASS' : 'FAIL'} (${p99.toFixed(0)} ms)`);
} finally {
  await app.close();
}
