import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { product, productVariant, webhookDelivery, webhookEndpoint } from '../../db/schema.ts';
import { createSecretBox } from '../../platform/secret-box.ts';
import { createHttpWebhookTransport } from './webhook-http-transport.ts';
import { newWebhookSecret } from './webhook-signature.ts';

/**
 * Webhook URLs outside production, with the default configuration (ALLOW_LOCAL_WEBHOOK_RECEIVERS
 * unset): the production rules apply, so a seller cannot make this server knock on internal ports
 * and read the answer back from their deliveries list.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

let t: TestApp;
let seller: SignedInClient;
let internal: http.Server;
let internalPort: number;
/** Every TCP connection the "internal service" ever saw. */
let connections = 0;

beforeAll(async () => {
  t = await startTestApp(); // NODE_ENV=test, local receivers not allowed
  seller = await t.signUp({ role: 'beta', name: 'Port scanner' });
  internal = http.createServer((_request, response) => response.end('internal'));
  internal.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  internalPort = (internal.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => internal?.close(() => resolve()));
  await t?.close();
});

describe('webhook URLs with the default setting (development and test as in production)', () => {
  it('refuses local, private and plain-http receivers when saved (422), and never contacts them', async () => {
    expect(t.context.config.mode).not.toBe('production');
    expect(t.context.config.allowLocalWebhookReceivers).toBe(false);
    const refused: [string, RegExp][] = [
      [`http://127.0.0.1:${internalPort}/hooks`, /https/],
      [`https://127.0.0.1:${internalPort}/hooks`, /public address/],
      [`https://localhost:${internalPort}/hooks`, /public host/],
      [`https://[::1]:${internalPort}/hooks`, /public address/],
      ['https://169.254.169.254/latest/meta-data', /public address/],
      ['https://10.0.0.5/hooks', /public address/],
      ['https://db.internal/hooks', /public host/],
    ];
    for (const [url, reason] of refused) {
      const response = await seller.request<any>('PUT', '/api/webhook-endpoint', { url }, {});
      expect(response.status, url).toBe(422);
      expect(response.body.error, url).toMatch(reason);
    }
    expect((await seller.get('/api/webhook-endpoint')).status).toBe(404);
    expect(connections).toBe(0);
  });

  it('refuses at delivery a local URL stored before (the setting was on then): never contacted, the delivery is refused', async () => {
    const id = randomUUID();
    const url = `http://127.0.0.1:${internalPort}/hooks`;
    const secretEnc = createSecretBox(t.context.config.appSecret).seal(newWebhookSecret(), {
      table: 'webhook_endpoint',
      rowId: id,
      ownerId: seller.userId,
      purpose: 'signing_secret',
    });
    await t.context.db.insert(webhookEndpoint).values({ id, ownerId: seller.userId, url, secretEnc });
    const [p] = await t.context.db.insert(product).values({ ownerId: seller.userId, name: 'Probe' }).returning({ id: product.id });
    await t.context.db.insert(productVariant).values({ productId: p!.id, ownerId: seller.userId, name: 'Default', sku: 'PROBE-1' });
    const placed = await seller.post('/api/orders/manual', { items: [{ sku: 'PROBE-1', quantity: 1 }], shippingAddress: ADDRESS });
    expect(placed.status).toBe(201);

    const deadline = Date.now() + 20_000;
    let rows: { state: string; lastError: string | null; attempts: number }[] = [];
    while (Date.now() < deadline) {
      rows = await t.context.db
        .select({ state: webhookDelivery.state, lastError: webhookDelivery.lastError, attempts: webhookDelivery.attempts })
        .from(webhookDelivery)
        .where(eq(webhookDelivery.orderId, placed.body.id));
      if (rows.length > 0 && rows.every((r) => r.state !== 'pending')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.state).toBe('refused');
      expect(row.lastError).toMatch(/https/);
    }
    expect(connections).toBe(0);
  });

  it('checks every address a name resolves to when connecting: localhost is never reached', async () => {
    const transport = createHttpWebhookTransport({ blockInternal: true });
    await expect(transport.post(`http://localhost:${internalPort}/hooks`, {}, '{}', { timeoutMs: 5000 })).rejects.toThrow(/internal address/);
    expect(connections).toBe(0);
    // The same transport with the guard off does reach it (the receiver is real).
    const open = createHttpWebhookTransport({ blockInternal: false });
    expect((await open.post(`http://localhost:${internalPort}/hooks`, {}, '{}', { timeoutMs: 5000 })).status).toBe(200);
    expect(connections).toBe(1);
  });
});
