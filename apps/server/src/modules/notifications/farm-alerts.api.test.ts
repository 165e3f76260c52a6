import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { auditLog } from '../../db/schema.ts';
import { QUEUES } from '../../jobs/job-queue.ts';
import {
  FAKE_WEBHOOK_ID,
  FAKE_WEBHOOK_TOKEN,
  loadDiscordApi,
  startDiscordFake,
  type DiscordFake,
} from '../../integrations/discord/discord-fake.ts';

/**
 * The farm's Discord alerts through the real server, job queue and print farm (simulated printers run
 * by the autopilot), posted to a fake Discord that validates every request against Discord's own
 * OpenAPI file and answers with bodies valid against it (discord-fake.ts): new orders, a failed
 * payment, a part that failed twice, a printer gone offline, a dead letter, and the admins'
 * sendDiscordNotification. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

let t: TestApp;
let fake: DiscordFake;
let admin: SignedInClient;
let seller: SignedInClient;

async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 30_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; Discord got: ${JSON.stringify(posted())}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What Discord accepted, in order. */
const posted = (): string[] =>
  fake.accepted().map((request) => (request.body as { content: string }).content);
const postedWith = (text: string) => posted().filter((content) => content.includes(text));

async function addPrinter(name: string, connection: Record<string, unknown> = {}): Promise<string> {
  const created = await admin.post('/api/admin/printers', {
    name,
    buildVolumeMm: { x: 250, y: 250, z: 250 },
    nozzleMm: 0.4,
    connection: { kind: 'simulated', speedFactor: 100_000, ...connection },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function manualOrder(): Promise<{ id: string; number: string }> {
  const created = await seller.post('/api/orders/manual', {
    items: [{ sku: 'ALERT-BOX', quantity: 1 }],
    shippingAddress: {
      name: 'Ada Buyer',
      line1: '1 Main St',
      city: 'Springfield',
      postalCode: '12345',
      country: 'US',
    },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id, number: created.body.externalId };
}

beforeAll(async () => {
  fake = await startDiscordFake(await loadDiscordApi());
  // A roomy bucket: these tests are about the alerts (the contract test plays the rate limits).
  fake.setBucket(50, 1);
  t = await startTestApp({
    DISCORD_WEBHOOK_URL: `https://discord.com/api/webhooks/${FAKE_WEBHOOK_ID}/${FAKE_WEBHOOK_TOKEN}`,
    DISCORD_API_URL: fake.origin,
    FARM_TICK_S: '0.2',
    FARM_AUTOPILOT: 'true',
    FARM_AUTOPILOT_DELAY_S: '0',
  });
  [admin, seller] = await Promise.all([
    t.signUp({ role: 'admin' }),
    t.signUp({ role: 'beta', name: 'Alert Seller' }),
  ]);
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  const product = await seller.post('/api/products', {
    name: 'Alert box',
    variants: [
      { name: 'Box', sku: 'ALERT-BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
afterEach(() => {
  // Every request the server sent was valid against Discord's spec, and every answer was too.
  expect(fake.requests.flatMap((request) => request.errors)).toEqual([]);
  expect(fake.requests.every((request) => request.operationId === 'execute_webhook')).toBe(true);
  expect(fake.responseErrors).toEqual([]);
});

describe('farm alerts on Discord', () => {
  it('tells of a part whose second attempt failed, with the order number and the printer, and of a new order', async () => {
    // Both printers fail every print at the first layer. A failed print leaves its printer free once
    // its bed is cleared (the autopilot clears simulated printers), so every attempt prints.
    const first = await addPrinter('Flaky one', { failAtLayer: 1 });
    const second = await addPrinter('Flaky two', { failAtLayer: 1 });
    const placed = await manualOrder();
    await waitFor(
      () => postedWith(`#${placed.number}`).find((content) => content.startsWith('New order')),
      'the new-order alert',
    );
    expect(postedWith(`New order #${placed.number} (manual)`)).toHaveLength(1);

    const twice = await waitFor(
      () => postedWith('Print failed twice').find((content) => content.includes(placed.number)),
      'the print-failed-twice alert',
    );
    expect(twice).toMatch(
      new RegExp(
        `^Print failed twice: part “[^”]+” of order #${placed.number} on printer “Flaky (one|two)” \\(last: The print failed on Flaky (one|two): Print failed at layer 1 of \\d+: the part came loose from the bed \\(simulated\\)\\)\\. It is printed once more\\.$`,
      ),
    );
    // The third attempt fails too: the order goes on hold, told once, never repeated by later ticks.
    const third = await waitFor(
      () => postedWith('Print failed 3 times').find((content) => content.includes(placed.number)),
      'the third failure alert',
    );
    expect(third).toMatch(/It is not reprinted again: the order is on hold until someone checks it\.$/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(postedWith('Print failed')).toHaveLength(2);
    for (const id of [first, second]) await admin.post(`/api/admin/printers/${id}/retire`);
    expect(
      (await admin.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'test over' })).status,
    ).toBe(200);
  });

  it('tells of a printer that goes offline once, by name', async () => {
    const id = await addPrinter('Shelf printer');
    expect((await admin.post(`/api/admin/printers/${id}/pause`)).status).toBe(200);
    // Seen answering first.
    await waitFor(async () => (await t.context.printerRepository.find(id))?.lastState, 'a first poll');
    t.context.simulatedPrinters.setOffline(id, true);
    await waitFor(() => postedWith('Shelf printer').length > 0, 'the offline alert');
    expect(postedWith('Shelf printer')[0]).toBe(
      'Printer “Shelf printer” went offline: The simulated printer is offline (as if unplugged).',
    );
    // Still offline over many ticks: told once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(postedWith('Shelf printer')).toHaveLength(1);
    t.context.simulatedPrinters.setOffline(id, false);
    await admin.post(`/api/admin/printers/${id}/retire`);
  });

  it('tells of new orders in one message per announcement batch, each order named once', async () => {
    const before = posted().length;
    const orders = await Promise.all(Array.from({ length: 6 }, () => manualOrder()));
    await waitFor(
      () =>
        orders.every((o) =>
          posted()
            .slice(before)
            .some((content) => content.includes(`#${o.number}`)),
        ),
      'every new order',
    );
    const messages = posted()
      .slice(before)
      .filter((content) => /new order/i.test(content));
    for (const o of orders)
      expect(messages.filter((content) => content.includes(`#${o.number} (manual)`))).toHaveLength(1);
    expect(messages.length).toBeLessThanOrEqual(orders.length);
    for (const o of orders)
      await admin.post(`/api/orders/${o.id}/status`, { to: 'cancelled', reason: 'test over' });
  });

  it('tells of a failed payment (the payments module’s alert), once per key, in plain words', async () => {
    const alert = {
      kind: 'payment_failed',
      orderNumber: 'LL-1001',
      sellerName: 'Ada *Maker*',
      reason: 'Your card was declined.',
      key: 'ch_alert_1',
    } as const;
    await Promise.all([t.context.farmAlerts.alert(alert), t.context.farmAlerts.alert(alert)]);
    const text = await waitFor(() => postedWith('LL-1001')[0], 'the payment alert');
    expect(text).toBe(
      'Payment failed for order #LL-1001 of Ada \\*Maker\\*: Your card was declined. Nothing prints until the seller’s card is charged.',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(postedWith('LL-1001')).toHaveLength(1);
  });

  it('tells of a dead-lettered job once, however often the dead letters are checked', async () => {
    await t.running.jobs.send(QUEUES.deadLetter, { orderId: 'an order' });
    await t.context.farmAlerts.checkDeadLetters(t.running.jobs);
    await t.context.farmAlerts.checkDeadLetters(t.running.jobs);
    await waitFor(() => postedWith('ran out of attempts').length > 0, 'the dead-letter alert');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(postedWith('ran out of attempts')).toEqual([
      'A background job ran out of attempts: unknown queue. Retry or inspect it under Admin → Background jobs.',
    ]);
  });
});

describe('sendDiscordNotification (POST /api/notifications/discord)', () => {
  it('posts an admin’s message now, pings nobody, and audits it', async () => {
    expect((await admin.get('/api/notifications/discord')).body).toEqual({ configured: true });
    const sent = await admin.post('/api/notifications/discord', { message: '@everyone Test from the farm' });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ delivered: true, messageId: expect.stringMatching(/^\d+$/) });
    const request = fake.accepted().at(-1)!;
    expect(request.body).toEqual({
      content: '@everyone Test from the farm',
      allowed_mentions: { parse: [] },
    });
    const [audited] = await t.context.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'discord.message'));
    expect(audited).toMatchObject({
      actorId: admin.userId,
      detail: { message: '@everyone Test from the farm', delivered: true, configured: true },
    });
  });

  it('is for admins only, with a strict body of 1 to 2,000 characters', async () => {
    const before = fake.requests.length;
    expect((await seller.post('/api/notifications/discord', { message: 'hi' })).status).toBe(403);
    expect((await seller.get('/api/notifications/discord')).status).toBe(403);
    expect((await t.client().post('/api/notifications/discord', { message: 'hi' })).status).toBe(401);
    expect((await admin.post('/api/notifications/discord', { message: '   ' })).status).toBe(400);
    expect((await admin.post('/api/notifications/discord', { message: 'x'.repeat(2001) })).status).toBe(400);
    expect(
      (await admin.post('/api/notifications/discord', { message: 'hi', username: 'Someone else' })).status,
    ).toBe(400);
    expect(fake.requests.length).toBe(before);
  });

  it('says in words when the webhook was deleted, and an alert to it is not retried', async () => {
    fake.script.push({ status: 404, body: { message: 'Unknown Webhook', code: 10015 } });
    const refused = await admin.post('/api/notifications/discord', { message: 'Anyone there?' });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatch(
      /webhook no longer exists \(404: Unknown Webhook\); set DISCORD_WEBHOOK_URL/,
    );

    fake.script.push({ status: 404, body: { message: 'Unknown Webhook', code: 10015 } });
    const before = fake.requests.length;
    await t.context.farmAlerts.alert({
      kind: 'payment_failed',
      orderNumber: null,
      sellerName: 'Gone Webhook Seller',
      reason: 'Declined',
      key: 'ch_alert_gone',
    });
    await waitFor(() => fake.requests.length > before, 'the alert’s attempt');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fake.requests.slice(before)).toHaveLength(1);
  });
});
