import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { affiliate, affiliateEarning, emailMessage, order } from '../../db/schema.ts';
import type { SandboxPaymentProvider } from '../../integrations/sandbox-payments/sandbox-payments.ts';
import { addVariants } from '../../../test/orders-fixtures.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import type { OrderRow } from '../orders/order-repository.ts';
import { createAffiliateRepository } from './affiliate-repository.ts';
import { createAffiliateService, type AffiliateViewer } from './affiliate-service.ts';

/*
 * Affiliates on the real server (PGlite, or PostgreSQL with DATABASE_URL): codes, the referral from
 * `?ref=` at sign-up, the ledger fed by the payments module's real events (a sandbox card charged by
 * an admin for an order, then refunded), pending → payable once the order is delivered + the holding
 * period (a second service on the same database with its clock moved on), the monthly payout run
 * through the sandbox provider's Connect transfers, and who may read whose ledger.
 */

let t: TestApp;
let ada: SignedInClient;
let bea: SignedInClient;
let admin: SignedInClient;
let plain: SignedInClient;
let skuCounter = 0;

const ADDRESS = {
  name: 'Ada Buyer',
  line1: '1 Main St',
  city: 'Springfield',
  postalCode: '12345',
  country: 'US',
};
const DAY = 24 * 3600 * 1000;
const SYSTEM = { kind: 'system', id: null } as const;

beforeAll(async () => {
  t = await startTestApp();
  ada = await t.signUp({ role: 'beta', name: 'Ada Lovelace' });
  bea = await t.signUp({ role: 'beta', name: 'Bea Maker' });
  admin = await t.signUp({ role: 'admin', name: 'Farm Admin' });
  plain = await t.signUp({ name: 'Plain Seller' });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const adminViewer = (): AffiliateViewer => ({
  id: admin.userId,
  name: 'Farm Admin',
  email: admin.email,
  isAdmin: true,
});

/** A service on the same database whose clock reads `at` (the holding period passed). */
const serviceAt = (at: Date) =>
  createAffiliateService({
    repository: createAffiliateRepository(t.context.db),
    audit: t.context.audit,
    provider: t.context.paymentProvider,
    settings: t.context.config.affiliates,
    publicUrl: undefined,
    now: () => at,
  });

/** A referred seller with a sandbox card on file (4242…). */
async function referredSeller(ref: string, name: string): Promise<SignedInClient> {
  const seller = await t.signUp({ name, extra: { affiliateRef: ref } });
  const card = await seller.post('/api/payments/sandbox/payment-methods', {
    cardNumber: '4242 4242 4242 4242',
    expMonth: 12,
    expYear: 2040,
    cvc: '123',
  });
  expect(card.status, JSON.stringify(card.body)).toBe(200);
  const stored = await seller.post('/api/payments/default-payment-method', {
    paymentMethodId: card.body.paymentMethodId,
  });
  expect(stored.status, JSON.stringify(stored.body)).toBe(200);
  return seller;
}

async function manualOrder(seller: SignedInClient): Promise<string> {
  const sku = `AFF-${process.pid}-${++skuCounter}`;
  await addVariants(t.context, seller.userId, [sku]);
  const created = await seller.post('/api/orders/manual', {
    items: [{ sku, quantity: 1 }],
    shippingAddress: ADDRESS,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

/** An admin charges the seller's card for the order by hand (chargeStoredCard): the payments module's real flow. */
async function charge(seller: SignedInClient, orderId: string, amount: number): Promise<string> {
  const charged = await admin.post('/api/payments/charge-stored-card', {
    orderId,
    amount,
    targetUserId: seller.userId,
  });
  expect(charged.status, JSON.stringify(charged.body)).toBe(200);
  expect(charged.body.status).toBe('succeeded');
  return charged.body.id as string;
}

/** The order through the farm to its buyer, as the farm and the carrier move it (the lifecycle's own transitions). */
async function deliver(orderId: string): Promise<void> {
  const current = async () =>
    (await t.context.db.select().from(order).where(eq(order.id, orderId)))[0] as unknown as OrderRow;
  if ((await current()).status === 'received')
    await t.context.orders.tryTransition(await current(), 'accepted', 'test', SYSTEM);
  for (const to of ['in_production', 'printed', 'packed', 'shipped', 'delivered'] as const)
    expect(await t.context.orders.tryTransition(await current(), to, 'test', SYSTEM)).toBe(true);
}

async function ledger(client: SignedInClient, affiliateId: string) {
  const page = await client.get(`/api/affiliates/${affiliateId}/earnings?limit=100`);
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  return page.body.items as any[];
}

describe('codes', () => {
  it('a beta tester gets a code from their name on first look, with a share link', async () => {
    const me = await ada.get('/api/affiliates/me');
    expect(me.status).toBe(200);
    expect(me.body.code).toBe('ada-lovelace');
    expect(me.body.affiliateId).toBe(ada.userId);
    expect(me.body.shareLink).toBe('/?ref=ada-lovelace');
    expect(me.body).toMatchObject({
      sharePercent: 10,
      periodMonths: 12,
      holdDays: 30,
      signUpsCount: 0,
      connect: { status: 'none', testMode: true },
    });
  });

  it('only beta testers have affiliate links', async () => {
    const refused = await plain.get('/api/affiliates/me');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/beta testers/);
  });

  it('refuses invalid codes with a clear error', async () => {
    const cases: [string, RegExp][] = [
      ['ab', /3 to 32 characters/],
      ['x'.repeat(33), /3 to 32 characters/],
      ['has space', /letters, digits and single dashes/],
      ['-dash-first', /letters, digits and single dashes/],
      ['émile', /letters, digits and single dashes/],
      ['Admin', /reserved/],
    ];
    for (const [code, message] of cases) {
      const refused = await ada.request('PUT', '/api/affiliates/me/code', { affiliateCode: code }, {});
      expect(refused.status, code).toBe(400);
      expect((refused.body as any).error, code).toMatch(message);
    }
    expect((await ada.get('/api/affiliates/me')).body.code).toBe('ada-lovelace');
  });

  it('codes are unique without regard to case', async () => {
    const changed = await ada.request<any>(
      'PUT',
      '/api/affiliates/me/code',
      { affiliateCode: 'Ada-Prints' },
      {},
    );
    expect(changed.status).toBe(200);
    expect(changed.body.code).toBe('Ada-Prints');
    expect(changed.body.shareLink).toBe('/?ref=Ada-Prints');
    const taken = await bea.request<any>(
      'PUT',
      '/api/affiliates/me/code',
      { affiliateCode: 'ada-PRINTS' },
      {},
    );
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('The code "ada-PRINTS" is taken; choose another');
    // Their own code in another case is theirs to take.
    expect(
      (await ada.request<any>('PUT', '/api/affiliates/me/code', { affiliateCode: 'ada-prints' }, {})).body
        .code,
    ).toBe('ada-prints');
  });

  it('two sellers with the same name get distinct codes', async () => {
    const twin = await t.signUp({ role: 'beta', name: 'Ada Lovelace' });
    await ada.request('PUT', '/api/affiliates/me/code', { affiliateCode: 'Ada-Prints' }, {});
    const first = (await twin.get('/api/affiliates/me')).body.code;
    const again = await t.signUp({ role: 'beta', name: 'Ada Lovelace' });
    const second = (await again.get('/api/affiliates/me')).body.code;
    expect(first).toBe('ada-lovelace');
    expect(second).toBe('ada-lovelace-2');
  });
});

describe('sign-ups, the ledger and payouts', () => {
  let seller: SignedInClient;
  let orderId: string;
  let chargeId: string;

  it('a sign-up with ?ref=CODE (any case) attaches to the affiliate; unknown codes are ignored', async () => {
    seller = await referredSeller('ADA-PRINTS', 'Referred Studio');
    const stranger = await t.signUp({ name: 'Nobody Sent Me', extra: { affiliateRef: 'no-such-code' } });
    const me = (await ada.get('/api/affiliates/me')).body;
    expect(me.signUpsCount).toBe(1);
    expect(me.signUps[0]).toMatchObject({ name: 'Referred Studio', ordersCount: 0, earnedCents: 0 });
    const joined = Date.parse(me.signUps[0].joinedAt);
    expect(Date.parse(me.signUps[0].endsAt) - joined).toBeGreaterThan(360 * DAY);
    expect(await t.context.affiliates.attachReferral(stranger.userId)).toBe(false);
    // A seller who later takes the code they came with is never their own referral.
    const selfRef = await t.signUp({ role: 'beta', name: 'Self Ref', extra: { affiliateRef: 'self-made' } });
    expect((await selfRef.request('PUT', '/api/affiliates/me/code', { affiliateCode: 'self-made' }, {})).status).toBe(200);
    expect(await t.context.affiliates.attachReferral(selfRef.userId)).toBe(false);
    expect((await selfRef.get('/api/affiliates/me')).body.signUpsCount).toBe(0);
  });

  it("a referred seller's succeeded order charge earns the share, once, and the affiliate is emailed", async () => {
    orderId = await manualOrder(seller);
    chargeId = await charge(seller, orderId, 40);
    const entries = await ledger(ada, ada.userId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: 'earning',
      amountCents: 400,
      state: 'pending',
      orderId,
      referredSeller: 'Referred Studio',
      payableAt: null,
    });
    // Told again (a listener after a restart): still one earning.
    await t.context.affiliates.onChargeChanged({
      chargeId,
      ownerId: seller.userId,
      orderId,
      orderNumber: null,
      kind: 'manual',
      from: 'pending',
      to: 'succeeded',
      amountCents: 4000,
      refundedCents: 0,
      currency: 'USD',
      failureReason: null,
      actionUrl: null,
    });
    expect(await ledger(ada, ada.userId)).toHaveLength(1);
    const mail = await t.context.db
      .select()
      .from(emailMessage)
      .where(eq(emailMessage.dedupeKey, `affiliate_earning:${entries[0].id}`));
    expect(mail).toHaveLength(1);
    expect(mail[0]!.templateType).toBe('affiliate_earning');
    expect(mail[0]!.text).toContain('$4.00');
    const me = (await ada.get('/api/affiliates/me')).body;
    expect(me).toMatchObject({
      ordersCount: 1,
      totals: { pendingCents: 400, payableCents: 0, paidCents: 0 },
    });
  });

  it('a refund reverses its share, negative and proportional', async () => {
    const refunded = await admin.post(`/api/payments/charges/${chargeId}/refund`, { amountCents: 1000 });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    const entries = await ledger(ada, ada.userId);
    expect(entries.map((e) => [e.kind, e.amountCents])).toEqual([
      ['reversal', -100],
      ['earning', 400],
    ]);
    expect((await ada.get('/api/affiliates/me')).body.totals.pendingCents).toBe(300);
  });

  it('the sweep writes what a crash left out, and never twice', async () => {
    await t.context.db
      .delete(affiliateEarning)
      .where(and(eq(affiliateEarning.chargeId, chargeId), eq(affiliateEarning.kind, 'reversal')));
    await t.context.db
      .delete(affiliateEarning)
      .where(and(eq(affiliateEarning.chargeId, chargeId), eq(affiliateEarning.kind, 'earning')));
    expect(await ledger(ada, ada.userId)).toHaveLength(0);
    const first = await t.context.affiliates.sweep();
    expect(first).toMatchObject({ earnings: 1, reversals: 1 });
    expect(await t.context.affiliates.sweep()).toMatchObject({ earnings: 0, reversals: 0, referrals: 0 });
    expect((await ledger(ada, ada.userId)).map((e) => e.amountCents).sort()).toEqual([-100, 400]);
  });

  it('stays pending until the order is delivered plus the holding period, then is payable', async () => {
    await deliver(orderId);
    const entries = await ledger(ada, ada.userId);
    expect(entries.every((e) => e.state === 'pending' && e.payableAt !== null)).toBe(true);
    const payableAt = Date.parse(entries[0].payableAt);
    expect(payableAt - Date.now()).toBeGreaterThan(29 * DAY);
    expect(payableAt - Date.now()).toBeLessThan(31 * DAY);
    const before = await serviceAt(new Date(payableAt - 60_000)).dashboard({
      id: ada.userId,
      name: 'Ada',
      email: ada.email,
      isAdmin: false,
    });
    expect(before.totals).toMatchObject({ pendingCents: 300, payableCents: 0 });
    const after = await serviceAt(new Date(payableAt + 60_000)).dashboard({
      id: ada.userId,
      name: 'Ada',
      email: ada.email,
      isAdmin: false,
    });
    expect(after.totals).toMatchObject({ pendingCents: 0, payableCents: 300, paidCents: 0 });
  });

  it('Connect onboarding: the link, an abandoned onboarding (pending), then completed (active)', async () => {
    const link = await ada.post('/api/affiliates/connect/onboarding-link', {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect(link.body.url).toMatch(/^\/affiliate-links\?connect=sandbox&account=acct_sandbox_[0-9a-f]+$/);
    const again = await ada.post('/api/affiliates/connect/onboarding-link');
    expect(again.body.url).toBe(link.body.url);
    // Back on the return page without finishing: still pending, with what is due.
    const abandoned = await ada.get('/api/affiliates/connect/status');
    expect(abandoned.body).toMatchObject({ status: 'pending', payoutsHeld: false });
    expect(abandoned.body.requirementsDue.length).toBeGreaterThan(0);
    const restricted = await ada.post('/api/affiliates/connect/sandbox', { outcome: 'restricted' });
    expect(restricted.body).toMatchObject({ status: 'restricted', requirementsDue: ['external_account'] });
    // An account Stripe no longer has (deleted in its dashboard) is forgotten, and a new one made for the next link.
    await t.context.db
      .update(affiliate)
      .set({ connectAccountId: 'acct_deleted' })
      .where(eq(affiliate.userId, ada.userId));
    expect((await ada.get('/api/affiliates/connect/status')).body.status).toBe('none');
    await t.context.db
      .update(affiliate)
      .set({ connectAccountId: 'acct_deleted', connectStatus: 'pending' })
      .where(eq(affiliate.userId, ada.userId));
    const replaced = await ada.post('/api/affiliates/connect/onboarding-link', {});
    expect(replaced.status).toBe(200);
    expect(replaced.body.url).toMatch(/account=acct_sandbox_/);
    expect(replaced.body.url).not.toBe(link.body.url);
    const done = await ada.post('/api/affiliates/connect/sandbox', { outcome: 'complete' });
    expect(done.body).toMatchObject({ status: 'active', requirementsDue: [] });
    expect((await ada.get('/api/affiliates/me')).body.connect.status).toBe('active');
  });

  it('a payout run approved twice transfers once; a held affiliate is skipped with the reason', async () => {
    // Bea brings a seller too, onboards, and an admin holds her payouts.
    await bea.request('PUT', '/api/affiliates/me/code', { affiliateCode: 'bea-makes' }, {});
    const beaSeller = await referredSeller('bea-makes', 'Bea Referral');
    const beaOrder = await manualOrder(beaSeller);
    await charge(beaSeller, beaOrder, 20);
    await deliver(beaOrder);
    await bea.post('/api/affiliates/connect/onboarding-link');
    await bea.post('/api/affiliates/connect/sandbox', { outcome: 'complete' });
    expect((await admin.post(`/api/admin/affiliates/${bea.userId}/hold`)).status).toBe(204);

    const later = new Date(Date.now() + 32 * DAY);
    const period = later.toISOString().slice(0, 7);
    const service = serviceAt(later);
    const proposed = await service.proposeRun(adminViewer(), period);
    expect(proposed.payouts).toHaveLength(1);
    expect(proposed.payouts[0]).toMatchObject({
      affiliateId: ada.userId,
      amountCents: 300,
      status: 'proposed',
      entriesCount: 2,
    });
    expect(proposed.skipped).toEqual([
      {
        affiliateId: bea.userId,
        code: 'bea-makes',
        amountCents: 200,
        reason: 'Payouts are held by an admin',
      },
    ]);

    const sandbox = t.context.paymentProvider as SandboxPaymentProvider;
    const transfersBefore = sandbox.transfers.length;
    const [first, second] = [
      await service.approveRun(adminViewer(), period),
      await service.approveRun(adminViewer(), period),
    ];
    expect(first.payouts[0]).toMatchObject({ status: 'paid', approvedBy: admin.userId });
    expect(second.payouts[0]!.transferId).toBe(first.payouts[0]!.transferId);
    const made = sandbox.transfers.slice(transfersBefore);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      amountCents: 300,
      currency: 'usd',
      idempotencyKey: `payout:${first.payouts[0]!.id}`,
    });
    // Proposed again: nothing new to pay; the paid entries are paid.
    expect((await service.proposeRun(adminViewer(), period)).payouts.map((p) => p.status)).toEqual(['paid']);
    const dashboard = await service.dashboard({
      id: ada.userId,
      name: 'Ada',
      email: ada.email,
      isAdmin: false,
    });
    expect(dashboard.totals).toMatchObject({ pendingCents: 0, payableCents: 0, paidCents: 300 });
    expect((await ledger(ada, ada.userId)).every((e) => e.state === 'paid' && e.paidAt)).toBe(true);

    // Released: Bea's balance goes in the next proposal.
    expect((await admin.post(`/api/admin/affiliates/${bea.userId}/unhold`, {})).status).toBe(204);
    const next = await service.proposeRun(adminViewer(), period);
    expect(next.payouts.find((p) => p.affiliateId === bea.userId)).toMatchObject({
      amountCents: 200,
      status: 'proposed',
    });
  });

  it('a transfer the provider refuses is failed; approved again once fixed, it is paid under the next key', async () => {
    const later = new Date(Date.now() + 32 * DAY);
    const period = later.toISOString().slice(0, 7);
    const service = serviceAt(later);
    // Stripe turned payouts off on Bea's account since she onboarded (here: an account the sandbox has not seen onboarded).
    await t.context.db
      .update(affiliate)
      .set({ connectAccountId: 'acct_sandbox_0badc0de' })
      .where(eq(affiliate.userId, bea.userId));
    const sandbox = t.context.paymentProvider as SandboxPaymentProvider;
    const before = sandbox.transfers.length;
    const failed = (await service.approveRun(adminViewer(), period)).payouts.find(
      (p) => p.affiliateId === bea.userId,
    )!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/capabilities enabled: transfers/);
    expect(sandbox.transfers.length).toBe(before);

    expect((await bea.post('/api/affiliates/connect/sandbox', { outcome: 'complete' })).body.status).toBe(
      'active',
    );
    const paid = (await service.approveRun(adminViewer(), period)).payouts.find(
      (p) => p.affiliateId === bea.userId,
    )!;
    expect(paid).toMatchObject({ status: 'paid', error: null });
    expect(sandbox.transfers.slice(before)).toMatchObject([
      { accountId: 'acct_sandbox_0badc0de', amountCents: 200, idempotencyKey: `payout:${paid.id}:2` },
    ]);
  });

  it("another seller cannot read someone's earnings; an admin can", async () => {
    const refused = await bea.get(`/api/affiliates/${ada.userId}/earnings`);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: 'Affiliate not found' });
    expect((await plain.get(`/api/affiliates/${ada.userId}/earnings`)).status).toBe(404);
    expect((await t.client().get(`/api/affiliates/${ada.userId}/earnings`)).status).toBe(401);
    expect((await admin.get(`/api/affiliates/${ada.userId}/earnings`)).status).toBe(200);
  });
});

describe('admins', () => {
  it('list every affiliate with totals, change a code (audited), refuse a taken one', async () => {
    const list = await admin.get('/api/admin/affiliates?limit=100');
    expect(list.status).toBe(200);
    const row = list.body.items.find((item: any) => item.userId === ada.userId);
    expect(row).toMatchObject({
      code: 'Ada-Prints',
      connectStatus: 'active',
      payoutsHeld: false,
      signUpsCount: 1,
      ordersCount: 1,
    });
    expect(row.totals).toMatchObject({ pendingCents: 0, payableCents: 0, paidCents: 300 });
    expect((await ada.get('/api/admin/affiliates')).status).toBe(403);

    expect(
      (
        await admin.request(
          'PUT',
          `/api/admin/affiliates/${ada.userId}/code`,
          { affiliateCode: 'ADA-2026' },
          {},
        )
      ).status,
    ).toBe(204);
    expect((await ada.get('/api/affiliates/me')).body.code).toBe('ADA-2026');
    const taken = await admin.request<any>(
      'PUT',
      `/api/admin/affiliates/${ada.userId}/code`,
      { affiliateCode: 'Bea-Makes' },
      {},
    );
    expect(taken.status).toBe(409);
    const audit = (await admin.get('/api/admin/audit?limit=50')).body.entries as any[];
    expect(audit.find((e) => e.action === 'affiliate.code_changed')).toMatchObject({
      actorId: admin.userId,
      targetUserId: ada.userId,
      detail: { from: 'Ada-Prints', to: 'ADA-2026' },
    });
    expect(audit.some((e) => e.action === 'affiliate.payouts_held' && e.targetUserId === bea.userId)).toBe(
      true,
    );
  });

  it('a payout run for a month not yet begun is refused', async () => {
    const future = new Date(Date.now() + 70 * DAY).toISOString().slice(0, 7);
    const refused = await admin.post('/api/admin/affiliates/payout-runs', { period: future });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('That month has not started yet');
    const current = await admin.post('/api/admin/affiliates/payout-runs', {
      period: new Date().toISOString().slice(0, 7),
    });
    expect(current.status).toBe(200);
    // Nothing is payable yet today (the holding period): no payout proposed.
    expect(current.body.payouts).toEqual([]);
  });
});
