import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_HOLD_PREFIX } from '@layerline/contracts';
import { addVariants, marketplaceOrder } from '../../../test/orders-fixtures.ts';
import { order as orderTable, shipment as shipmentTable } from '../../db/schema.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import type { OrderStatusChangeEvent } from '../orders/order-service.ts';

/*
 * Email notifications through a real SMTP server in this process (smtp-server): what arrives is
 * parsed (mailparser) and checked; a second server without SMTP keeps its mail in the outbox.
 */

interface Received {
  readonly to: string[];
  readonly mail: ParsedMail;
}

const received: Received[] = [];
/** RCPT TO addresses the server refused (every address starting with "refuse"). */
const refused: string[] = [];
let smtp: SMTPServer;
let t: TestApp;
let admin: SignedInClient;
const announced: OrderStatusChangeEvent[] = [];

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const mailTo = (email: string, subject: RegExp) => received.filter((r) => r.to.includes(email) && subject.test(r.mail.subject ?? ''));
/** The first message to this address with a matching subject, once one has arrived. */
const arrived = (what: string, email: string, subject: RegExp) => waitFor(what, () => mailTo(email, subject)[0]);
const header = (mail: ParsedMail, name: string) => mail.headerLines.find((line) => line.key === name)?.line.replace(/^[^:]+:\s*/, '').replace(/\r?\n\s+/g, ' ');

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('refuse')) {
        refused.push(address.address);
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  t = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, EMAIL_MAX_ATTEMPTS: '3', EMAIL_RETRY_DELAY_S: '0.1' });
  admin = await t.signUp({ role: 'admin' });
  t.context.orders.onStatusChanges(async (events) => {
    announced.push(...events);
  });
});

afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

const ingest = (ownerId: string, externalId: string, skus: string[]) =>
  t.context.orderIngestion.ingest({
    ownerId,
    channel: `test:${ownerId}`,
    shopId: null,
    platform: 'api',
    order: marketplaceOrder(externalId, skus),
    actor: { kind: 'marketplace', id: null },
  });

describe('emails through SMTP', () => {
  it('the welcome email arrives with HTML, text and the List-Unsubscribe headers', async () => {
    const seller = await t.signUp({ name: 'Ada Lovelace' });
    const { mail } = await arrived('the welcome email', seller.email, /Welcome/);
    expect(mail.subject).toBe('Welcome to Layerline, Ada Lovelace');
    expect(mail.html).toContain('Hi Ada Lovelace, welcome to Layerline.');
    expect(mail.html).toContain('/dashboard');
    expect(mail.text).toContain('Hi Ada Lovelace, welcome to Layerline.');
    expect(mail.text).toMatch(/Unsubscribe from these emails: http:\/\/\S+\/unsubscribe\?token=\S+/);
    expect(header(mail, 'list-unsubscribe')).toMatch(/^<http:\/\/\S+\/api\/notifications\/unsubscribe\?token=[^>]+>$/);
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    // The stored message is marked sent.
    const page = await admin.get(`/api/notifications/outbox?search=${encodeURIComponent(seller.email)}`);
    expect(page.status).toBe(200);
    const stored = await waitFor('status sent', async () => {
      const r = await admin.get(`/api/notifications/outbox?search=${encodeURIComponent(seller.email)}`);
      return r.body.items.find((m: any) => m.templateType === 'welcome' && m.status === 'sent');
    });
    expect(stored.attempts).toBe(1);
  });

  it('an order put on hold mails the seller once, even when the change is announced twice; payment holds are left to payments', async () => {
    const seller = await t.signUp();
    await addVariants(t.context, seller.userId, ['NT-KNOWN-1']);
    const { orderId } = await ingest(seller.userId, 'HOLD-NT-1', ['NT-UNKNOWN-1']);
    const mail = await arrived('the on-hold email', seller.email, /on hold/);
    expect(mail.mail.subject).toBe('Action needed: order HOLD-NT-1 is on hold');
    expect(mail.mail.text).toContain('NT-UNKNOWN-1');
    expect(mail.mail.html).toContain(`/orders?order=${orderId}`);
    // The orders module announces a change at least once: the same change told again mails nothing more.
    const events = announced.filter((e) => e.orderId === orderId && e.to === 'on_hold');
    expect(events).toHaveLength(1);
    await t.context.notifications.onOrderStatusChanges([events[0]!, events[0]!]);
    // An accepted order held for its payment: the payments module sends that email, not this one.
    const accepted = await ingest(seller.userId, 'HOLD-NT-2', ['NT-KNOWN-1']);
    const [order] = await t.context.db.select().from(orderTable).where(eq(orderTable.id, accepted.orderId));
    expect(await t.context.orders.tryTransition(order!, 'on_hold', `${PAYMENT_HOLD_PREFIX}card declined`, { kind: 'system', id: null })).toBe(true);
    await waitFor('the payment hold announced', () => announced.some((e) => e.orderId === accepted.orderId && e.to === 'on_hold'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(mailTo(seller.email, /on hold/)).toHaveLength(1);
    const rows = await admin.get(`/api/notifications/outbox?search=${encodeURIComponent(seller.email)}`);
    expect(rows.body.items.filter((m: any) => m.templateType === 'order_on_hold')).toHaveLength(1);
  });

  it('a shipped order mails its carrier, tracking number and tracking link; a delivered one says so', async () => {
    const seller = await t.signUp();
    await addVariants(t.context, seller.userId, ['NT-SHIP-1']);
    const { orderId } = await ingest(seller.userId, 'SHIP-NT-1', ['NT-SHIP-1']);
    await t.context.db.insert(shipmentTable).values({
      orderId,
      ownerId: seller.userId,
      provider: 'sandbox',
      parcelIndex: 0,
      parcelCount: 1,
      parcel: { parcelId: 'p1', name: 'Small box', lengthMm: 100, widthMm: 100, heightMm: 100, weightGrams: 200, partCount: 1, costCents: 40 },
      idempotencyKey: `ship-nt-${orderId}`,
      status: 'purchased',
      carrier: 'USPS',
      service: 'Ground Advantage',
      trackingNumber: '9400100000000000000001',
      trackingUrl: '/tracking/9400100000000000000001',
    });
    for (const to of ['in_production', 'printed', 'packed', 'shipped', 'delivered'] as const) {
      const [current] = await t.context.db.select().from(orderTable).where(eq(orderTable.id, orderId));
      expect(await t.context.orders.tryTransition(current!, to, '', { kind: 'system', id: null })).toBe(true);
    }
    const shipped = await arrived('the shipped email', seller.email, /has shipped/);
    expect(shipped.mail.subject).toBe('Order SHIP-NT-1 has shipped');
    expect(shipped.mail.text).toContain('Carrier: USPS');
    expect(shipped.mail.text).toContain('Tracking number: 9400100000000000000001');
    expect(shipped.mail.text).toMatch(/Track the parcel:\nhttp:\/\/\S+\/tracking\/9400100000000000000001/);
    const delivered = await arrived('the delivered email', seller.email, /was delivered/);
    expect(delivered.mail.html).toContain('The carrier delivered order SHIP-NT-1.');
  });

  it('a kind of email turned off is not sent; an unsubscribe link turns its kind off', async () => {
    const quiet = await t.signUp();
    const control = await t.signUp();
    const put = await quiet.request<any>('PUT', '/api/notifications/preferences', { disabled: ['order_on_hold', 'weekly_summary'] }, {});
    expect(put.status).toBe(200);
    expect((put.body as any).disabled).toEqual(['order_on_hold', 'weekly_summary']);
    expect((await quiet.get('/api/notifications/preferences')).body).toEqual({ userId: quiet.userId, disabled: ['order_on_hold', 'weekly_summary'] });
    const held = await ingest(quiet.userId, 'QUIET-1', ['NT-NOPE-1']);
    await ingest(control.userId, 'LOUD-1', ['NT-NOPE-1']);
    await arrived('the control seller’s email', control.email, /on hold/);
    await waitFor('the quiet order announced', () => announced.some((e) => e.orderId === held.orderId));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mailTo(quiet.email, /on hold/)).toHaveLength(0);

    // The control seller's welcome email carries the one-click address: a mail client's POST turns welcome emails off.
    const welcome = await arrived('the welcome email', control.email, /Welcome/);
    const listUrl = new URL(header(welcome.mail, 'list-unsubscribe')!.slice(1, -1));
    const path = `${listUrl.pathname}${listUrl.search}`;
    const status = await fetch(new URL(path, t.baseUrl));
    expect(await status.json()).toEqual({ templateType: 'welcome', label: 'Welcome', email: expect.stringMatching(/^.\*\*\*@example\.test$/), subscribed: true });
    // As a mail provider sends it (RFC 8058): no cookie, a form body.
    const oneClick = await fetch(new URL(path, t.baseUrl), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(200);
    expect(((await oneClick.json()) as { subscribed: boolean }).subscribed).toBe(false);
    expect((await control.get('/api/notifications/preferences')).body.disabled).toEqual(['welcome']);
    // The page's link (the body's) works the same, again (nothing changes twice).
    const pageLink = new URL(welcome.mail.text!.match(/Unsubscribe from these emails: (\S+)/)![1]!);
    const again = await t.client().post(`/api/notifications/unsubscribe?token=${encodeURIComponent(pageLink.searchParams.get('token')!)}`);
    expect(again.status).toBe(200);
    expect((await control.get('/api/notifications/preferences')).body.disabled).toEqual(['welcome']);
    // A forged or altered token is refused.
    const forged = pageLink.searchParams.get('token')!.replace(/\.welcome\./, '.weekly_summary.');
    expect((await t.client().post(`/api/notifications/unsubscribe?token=${encodeURIComponent(forged)}`)).status).toBe(404);
    expect((await t.client().get('/api/notifications/unsubscribe?token=not-a-real-token-at-all')).status).toBe(404);
  });

  it('sendCustomEmail is for admins only; its variables are rendered and escaped', async () => {
    const seller = await t.signUp();
    const input = {
      email: seller.email,
      subject: 'About {{topic}}',
      message: 'Hello {{name}},\n\nYour code is {{code}}.',
      vars: { topic: 'your <order>', name: 'Ada & co', code: '<script>alert(1)</script>' },
    };
    expect((await seller.post('/api/notifications/send-custom-email', input)).status).toBe(403);
    expect((await t.client().post('/api/notifications/send-custom-email', input)).status).toBe(401);
    const unknownVar = await admin.post('/api/notifications/send-custom-email', { ...input, message: 'Hi {{nmae}}' });
    expect(unknownVar.status).toBe(400);
    expect(unknownVar.body.error).toContain('{{nmae}}');

    const sent = await admin.post('/api/notifications/send-custom-email', input);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ toAddress: seller.email, templateType: 'custom', subject: 'About your <order>', createdBy: admin.userId });
    const mail = await arrived('the custom email', seller.email, /About/);
    expect(mail.mail.subject).toBe('About your <order>');
    expect(mail.mail.html).toContain('Hello Ada &amp; co,');
    expect(mail.mail.html).toContain('Your code is &lt;script&gt;alert(1)&lt;/script&gt;.');
    expect(mail.mail.html).not.toContain('<script>');
    expect(mail.mail.text).toContain('Your code is <script>alert(1)</script>.');
    expect(header(mail.mail, 'list-unsubscribe')).toContain('/api/notifications/unsubscribe?token=');
    const audit = await admin.get('/api/admin/audit?limit=50');
    expect(audit.body.entries.some((e: any) => e.action === 'notifications.custom-email-sent' && e.actorId === admin.userId && e.targetUserId === seller.userId)).toBe(true);
    // A seller who turned these off is not written to.
    await seller.request('PUT', '/api/notifications/preferences', { disabled: ['custom'] }, {});
    expect((await admin.post('/api/notifications/send-custom-email', input)).status).toBe(409);
  });

  it('a message the SMTP server refuses is retried, then failed with the reason', async () => {
    const sent = await admin.post('/api/notifications/send-custom-email', { email: 'refuse-me@example.test', subject: 'Bounce', message: 'This one bounces.' });
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('queued');
    const failed = await waitFor('the message failed', async () => {
      const r = await admin.get(`/api/notifications/outbox/${sent.body.id}`);
      return r.body.status === 'failed' ? r.body : undefined;
    });
    expect(failed.attempts).toBe(3);
    expect(failed.lastError).toMatch(/Mailbox unavailable/);
    expect(refused.filter((a) => a === 'refuse-me@example.test')).toHaveLength(3);
    expect((await admin.get('/api/notifications/outbox?status=failed')).body.items.map((m: any) => m.id)).toContain(sent.body.id);
  });
});

describe('without SMTP: the outbox', () => {
  let o: TestApp;
  let oAdmin: SignedInClient;
  let seller: SignedInClient;

  beforeAll(async () => {
    o = await startTestApp();
    oAdmin = await o.signUp({ role: 'admin' });
    seller = await o.signUp({ name: 'Grace' });
  });
  afterAll(async () => {
    await o?.close();
  });

  it('keeps messages for admins to read, not for sellers', async () => {
    const list = await oAdmin.get(`/api/notifications/outbox?search=${encodeURIComponent(seller.email)}`);
    expect(list.status).toBe(200);
    const [welcome] = list.body.items;
    expect(welcome).toMatchObject({ toAddress: seller.email, templateType: 'welcome', status: 'outbox', attempts: 0, sentAt: null });
    const detail = await oAdmin.get(`/api/notifications/outbox/${welcome.id}`);
    expect(detail.body.html).toContain('Hi Grace, welcome to Layerline.');
    expect(detail.body.text).toContain('Hi Grace, welcome to Layerline.');
    expect(detail.body.unsubscribeUrl).toContain('/api/notifications/unsubscribe?token=');
    expect((await seller.get('/api/notifications/outbox')).status).toBe(403);
    expect((await seller.get(`/api/notifications/outbox/${welcome.id}`)).status).toBe(403);
    expect((await o.client().get('/api/notifications/outbox')).status).toBe(401);
    // Admins page through every message, newest first.
    const first = await oAdmin.get('/api/notifications/outbox?limit=1');
    expect(first.body.items).toHaveLength(1);
    const second = await oAdmin.get(`/api/notifications/outbox?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expect(second.body.items[0].createdAt <= first.body.items[0].createdAt).toBe(true);
  });

  it('an admin reads and sets a seller’s preferences (audited); a seller cannot name another user', async () => {
    const put = await oAdmin.request('PUT', '/api/notifications/preferences', { disabled: ['affiliate_earning'], targetUserId: seller.userId }, {});
    expect(put.status).toBe(200);
    expect((await oAdmin.get(`/api/notifications/preferences?targetUserId=${seller.userId}`)).body.disabled).toEqual(['affiliate_earning']);
    const audit = await oAdmin.get('/api/admin/audit?limit=20');
    expect(audit.body.entries.some((e: any) => e.action === 'notifications.preferences-updated' && e.actorId === oAdmin.userId && e.targetUserId === seller.userId)).toBe(true);
    expect((await seller.get(`/api/notifications/preferences?targetUserId=${oAdmin.userId}`)).status).toBe(403);
  });

  it('mails last week’s summary once per seller who had orders', async () => {
    await addVariants(o.context, seller.userId, ['WK-1']);
    const { orderId } = await o.context.orderIngestion.ingest({
      ownerId: seller.userId,
      channel: `test:${seller.userId}`,
      shopId: null,
      platform: 'api',
      order: marketplaceOrder('WEEK-1', ['WK-1']),
      actor: { kind: 'marketplace', id: null },
    });
    const now = new Date();
    const lastWeek = new Date(now.getTime() - 7 * 24 * 60 * 60 * 1000);
    await o.context.db.execute(sql`UPDATE "order" SET created_at = ${lastWeek} WHERE id = ${orderId}`);
    expect(await o.context.notifications.sendWeeklySummaries(now)).toBe(1);
    expect(await o.context.notifications.sendWeeklySummaries(now)).toBe(0);
    const list = await oAdmin.get(`/api/notifications/outbox?search=${encodeURIComponent(seller.email)}`);
    const summary = list.body.items.find((m: any) => m.templateType === 'weekly_summary');
    const detail = await oAdmin.get(`/api/notifications/outbox/${summary.id}`);
    expect(detail.body.text).toContain('Orders received: 1');
    expect(detail.body.text).toContain('Orders shipped: 0');
    expect(detail.body.text).toContain('Charged: $0.00');
  });
});
