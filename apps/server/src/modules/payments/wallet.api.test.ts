import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { charge, emailMessage, printJob, receipt, wallet, walletEntry, walletTopUp } from '../../db/schema.ts';

/**
 * The wallet through the real server and database (issue 24; docs/wallet.md), with the sandbox
 * provider (Stripe's test cards): top-ups (a request twice is one top-up), orders paid from the balance
 * first and by card when it does not cover them, auto-recharge (one per fall below the threshold; a
 * failure emails and the order goes to the card), refunds into the balance, admins' adjustments, the
 * append-only ledger, receipts numbered without gaps with their PDFs, the statement and the CSV exports,
 * and many concurrent orders and top-ups: balance = Σ entries, never negative, each order paid once.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62704', country: 'US' };
const VISA = '4242424242424242';
/** Attaches, then every charge on it fails (Stripe's test card). */
const ALWAYS_FAILS = '4000000000000341';

let t: TestApp;
let admin: SignedInClient;

const put = (client: SignedInClient, path: string, body: unknown) => client.request<any>('PUT', path, body, {});
const walletOf = async (client: SignedInClient) => (await client.get('/api/wallet')).body;
const chargesOf = async (client: SignedInClient, orderId: string) =>
  (await client.get(`/api/payments/charges?orderId=${orderId}`)).body.items as any[];

async function sellerWith(cardNumber: string | null): Promise<SignedInClient> {
  const seller = await t.signUp({ role: 'beta' });
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  const product = await seller.post('/api/products', {
    name: 'Box',
    variants: [{ name: 'Box', sku: 'BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
  if (cardNumber) await storeCard(seller, cardNumber);
  return seller;
}

async function storeCard(seller: SignedInClient, cardNumber: string) {
  expect((await seller.post('/api/payments/setup-intent')).status).toBe(200);
  const method = await seller.post('/api/payments/sandbox/payment-methods', { cardNumber, expMonth: 12, expYear: 2034, cvc: '123' });
  expect(method.status).toBe(200);
  const stored = await seller.post('/api/payments/default-payment-method', { paymentMethodId: method.body.paymentMethodId });
  expect(stored.status).toBe(200);
}

async function placeOrder(seller: SignedInClient, settle = true): Promise<string> {
  const created = await seller.post('/api/orders/manual', { items: [{ sku: 'BOX', quantity: 1 }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  if (settle) await t.context.orders.announcementsSettled();
  return created.body.id as string;
}

async function topUp(seller: SignedInClient, amountCents: number, requestId = randomUUID()) {
  return seller.post('/api/wallet/top-ups', { amountCents, requestId });
}

/** The invariant of the ledger: the balance is the sum of the entries, and never below zero. */
async function expectLedgerConsistent(ownerId: string) {
  const entries = await t.context.db.select().from(walletEntry).where(eq(walletEntry.ownerId, ownerId)).orderBy(asc(walletEntry.createdAt));
  const [row] = await t.context.db.select().from(wallet).where(eq(wallet.ownerId, ownerId));
  const sum = entries.reduce((total, entry) => total + entry.amountCents, 0);
  expect(row?.balanceCents ?? 0).toBe(sum);
  expect(row?.balanceCents ?? 0).toBeGreaterThanOrEqual(0);
  for (const entry of entries) expect(entry.balanceAfterCents).toBeGreaterThanOrEqual(0);
  return { balance: row?.balanceCents ?? 0, entries };
}

/** Receipt numbers are 1..n with no gap and no repeat, across every seller. */
async function expectReceiptsGapless() {
  const rows = await t.context.db.select({ number: receipt.number }).from(receipt).orderBy(asc(receipt.number));
  expect(rows.map((row) => row.number)).toEqual(rows.map((_, index) => index + 1));
}

beforeAll(async () => {
  t = await startTestApp({
    PAYMENTS_CHARGE_ORDERS: 'true',
    FARM_AUTOPILOT: 'false',
    FARM_TICK_S: '300',
    MAX_BUILD_VOLUME_MM: '400,400,400',
  });
  admin = await t.signUp({ role: 'admin' });
}, 120_000);
afterAll(async () => t?.close());

describe('top-ups', () => {
  it('credit the balance once per request, each with its receipt; bad input is a 4xx with an error', async () => {
    const seller = await sellerWith(VISA);
    expect(await walletOf(seller)).toMatchObject({ balanceCents: 0, hasCard: true, testMode: true, autoRecharge: false });
    const requestId = randomUUID();
    const [first, again] = await Promise.all([topUp(seller, 2500, requestId), topUp(seller, 2500, requestId)]);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'succeeded', amountCents: 2500, automatic: false });
    expect(first.body.id).toBe(again.body.id);
    expect((await walletOf(seller)).balanceCents).toBe(2500);
    const entries = (await seller.get('/api/wallet/entries')).body.items;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: 'top_up', amountCents: 2500, balanceAfterCents: 2500 });
    expect(entries[0].receiptNumber).toBeGreaterThan(0);

    // The same request id with another amount is refused, not taken for a replay.
    expect((await topUp(seller, 9900, requestId)).status).toBe(409);
    for (const bad of [{ amountCents: 100, requestId: randomUUID() }, { amountCents: 12.5, requestId: randomUUID() }, { amountCents: 2500 }]) {
      const response = await seller.post('/api/wallet/top-ups', bad);
      expect(response.status).toBe(400);
      expect(response.body.error).toBeTruthy();
    }
    expect((await walletOf(seller)).balanceCents).toBe(2500);
    await expectLedgerConsistent(seller.userId);
  });

  it('a declined card tops up nothing; no card is a 409', async () => {
    const declined = await sellerWith('4000000000000002');
    const response = await topUp(declined, 1000);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', failureReason: 'Your card was declined.', receiptNumber: null });
    expect((await walletOf(declined)).balanceCents).toBe(0);
    const noCard = await t.signUp({ role: 'beta' });
    const refused = await topUp(noCard, 1000);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/card/i);
  });
});

describe('orders', () => {
  it('are paid from the balance when it covers them, else by card; a refund goes back to where it came from', async () => {
    const seller = await sellerWith(VISA);
    expect((await topUp(seller, 2000)).body.status).toBe('succeeded');
    const fromWallet = await placeOrder(seller);
    const [paid] = await chargesOf(seller, fromWallet);
    expect(paid).toMatchObject({ provider: 'wallet', status: 'succeeded', kind: 'order' });
    const afterOrder = (await walletOf(seller)).balanceCents;
    expect(afterOrder).toBe(2000 - paid.amountCents);
    // Paid: the farm made its jobs.
    const jobs = await t.context.db.select().from(printJob).where(eq(printJob.orderId, fromWallet));
    expect(jobs.length).toBeGreaterThan(0);

    // Announced again: still one charge, one debit.
    await t.context.payments.onOrderStatusChanges([
      { announcementId: randomUUID(), orderId: fromWallet, ownerId: seller.userId, channel: 'manual', from: 'received', to: 'accepted' },
    ]);
    expect(await chargesOf(seller, fromWallet)).toHaveLength(1);

    // An order the balance does not cover goes to the card, whole; the balance is untouched.
    const debit = await admin.post('/api/wallet/adjustments', {
      targetUserId: seller.userId,
      amountCents: -(afterOrder - 10),
      reason: 'Test: leave 10 cents',
      requestId: randomUUID(),
    });
    expect(debit.status).toBe(200);
    const byCard = await placeOrder(seller);
    expect((await chargesOf(seller, byCard))[0]).toMatchObject({ provider: 'sandbox', status: 'succeeded' });
    expect((await walletOf(seller)).balanceCents).toBe(10);

    // Cancelled before printing: the balance-paid order is refunded into the balance, with a refund receipt.
    const cancelled = await seller.post(`/api/orders/${fromWallet}/status`, { to: 'cancelled', reason: 'The buyer changed their mind' });
    expect(cancelled.status).toBe(200);
    await t.context.orders.announcementsSettled();
    const [refunded] = await chargesOf(seller, fromWallet);
    expect(refunded).toMatchObject({ status: 'refunded', refundedCents: paid.amountCents });
    expect((await walletOf(seller)).balanceCents).toBe(10 + paid.amountCents);
    const receipts = (await seller.get('/api/wallet/receipts')).body.items as any[];
    expect(receipts.map((r) => [r.kind, r.paidWith])).toEqual(
      expect.arrayContaining([
        ['top_up', 'card'],
        ['charge', 'wallet'],
        ['adjustment', 'wallet'],
        ['charge', 'card'],
        ['refund', 'wallet'],
      ]),
    );
    expect(receipts.find((r) => r.kind === 'refund').amountCents).toBe(-paid.amountCents);
    // The seller's refund email says where the money went.
    const [refundMail] = await t.context.db
      .select()
      .from(emailMessage)
      .where(and(eq(emailMessage.userId, seller.userId), eq(emailMessage.templateType, 'order_refunded')));
    expect(refundMail!.text).toContain('Refunded to: your prepaid balance');
    await expectLedgerConsistent(seller.userId);
    await expectReceiptsGapless();
  });
});

describe('auto-recharge', () => {
  it('tops up once per fall below the threshold, before the order that needs it', async () => {
    const seller = await sellerWith(VISA);
    const set = await put(seller, '/api/wallet/auto-recharge', { enabled: true, thresholdCents: 500, amountCents: 3000 });
    expect(set.status).toBe(200);
    // Below the threshold already (0 < $5): recharged at once.
    expect(set.body).toMatchObject({ autoRecharge: true, balanceCents: 3000 });
    const orderId = await placeOrder(seller);
    expect((await chargesOf(seller, orderId))[0].provider).toBe('wallet');
    // Announcing more falls below the threshold at once makes one top-up per fall (the crossing's key).
    const crossings = await t.context.db.select().from(walletTopUp).where(and(eq(walletTopUp.ownerId, seller.userId), eq(walletTopUp.automatic, true)));
    const keys = crossings.map((row) => row.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);
    await expectLedgerConsistent(seller.userId);
  });

  it('a failed recharge emails the seller once and the order falls back to the card', async () => {
    const seller = await sellerWith(ALWAYS_FAILS);
    const set = await put(seller, '/api/wallet/auto-recharge', { enabled: true, thresholdCents: 500, amountCents: 2000 });
    expect(set.status).toBe(200);
    expect(set.body.balanceCents).toBe(0);
    const orderId = await placeOrder(seller);
    // The card was asked for the order (it fails too, so the order is held for a new card).
    const charges = await chargesOf(seller, orderId);
    expect(charges[0]).toMatchObject({ provider: 'sandbox', status: 'failed' });
    const mails = await t.context.db
      .select()
      .from(emailMessage)
      .where(and(eq(emailMessage.userId, seller.userId), eq(emailMessage.templateType, 'wallet_recharge_failed')));
    expect(mails).toHaveLength(1);
    // The fall was spent: no second attempt until the balance is back above the threshold.
    const topUps = await t.context.db.select().from(walletTopUp).where(eq(walletTopUp.ownerId, seller.userId));
    expect(topUps).toHaveLength(1);
    expect(topUps[0]).toMatchObject({ automatic: true, status: 'failed' });
  });

  it('refuses another seller’s settings and needs a card', async () => {
    const seller = await sellerWith(null);
    const noCard = await put(seller, '/api/wallet/auto-recharge', { enabled: true, thresholdCents: 500, amountCents: 2000 });
    expect(noCard.status).toBe(409);
    const other = await sellerWith(VISA);
    const foreign = await put(other, '/api/wallet/auto-recharge', { enabled: false, thresholdCents: 0, amountCents: 500, targetUserId: seller.userId });
    expect(foreign.status).toBe(403);
    expect((await other.get(`/api/wallet?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await admin.get(`/api/wallet?targetUserId=${seller.userId}`)).body.ownerId).toBe(seller.userId);
  });
});

describe('the ledger', () => {
  it('is append-only: the database refuses to change or delete an entry', async () => {
    const seller = await sellerWith(VISA);
    await topUp(seller, 1000);
    const [entry] = await t.context.db.select().from(walletEntry).where(eq(walletEntry.ownerId, seller.userId));
    await expect(t.context.db.update(walletEntry).set({ amountCents: 999_999 }).where(eq(walletEntry.id, entry!.id))).rejects.toThrow();
    await expect(t.context.db.delete(walletEntry).where(eq(walletEntry.id, entry!.id))).rejects.toThrow();
    const [still] = await t.context.db.select().from(walletEntry).where(eq(walletEntry.id, entry!.id));
    expect(still!.amountCents).toBe(1000);
  });

  it('admins adjust it with a reason (once per request); sellers cannot; a debit beyond the balance is refused', async () => {
    const seller = await sellerWith(VISA);
    const body = { targetUserId: seller.userId, amountCents: 700, reason: 'Goodwill credit', requestId: randomUUID() };
    expect((await seller.post('/api/wallet/adjustments', body)).status).toBe(403);
    const [one, two] = await Promise.all([admin.post('/api/wallet/adjustments', body), admin.post('/api/wallet/adjustments', body)]);
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(one.body.id).toBe(two.body.id);
    expect((await walletOf(seller)).balanceCents).toBe(700);
    const nobody = await admin.post('/api/wallet/adjustments', { ...body, targetUserId: 'no-such-seller', requestId: randomUUID() });
    expect(nobody.status).toBe(404);
    expect(nobody.body.error).toBeTruthy();
    expect((await put(admin, '/api/wallet/auto-recharge', { enabled: false, thresholdCents: 0, amountCents: 500, targetUserId: 'no-such-seller' })).status).toBe(404);
    const tooMuch = await admin.post('/api/wallet/adjustments', { ...body, amountCents: -701, requestId: randomUUID() });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error).toMatch(/balance/i);
    expect((await walletOf(seller)).balanceCents).toBe(700);
    await expectLedgerConsistent(seller.userId);
  });

  it('balance = Σ entries, never negative, every order paid exactly once, under concurrent orders and top-ups', async () => {
    const seller = await sellerWith(VISA);
    await topUp(seller, 2000);
    // Auto-recharge on too: falls below $10 race with the orders and top-ups.
    expect((await put(seller, '/api/wallet/auto-recharge', { enabled: true, thresholdCents: 1000, amountCents: 1500 })).status).toBe(200);
    const orders = 32;
    const topUps = 8;
    const results = await Promise.all([
      ...Array.from({ length: orders }, () => placeOrder(seller, false)),
      ...Array.from({ length: topUps }, () => topUp(seller, 1500).then(() => null)),
    ]);
    const orderIds = results.filter((id): id is string => id !== null);
    expect(orderIds).toHaveLength(orders);
    // Each release announced twice more at the same time (a retry racing the first), with more top-ups.
    const again = orderIds.map((orderId) => ({
      announcementId: randomUUID(),
      orderId,
      ownerId: seller.userId,
      channel: 'manual' as const,
      from: 'received' as const,
      to: 'accepted' as const,
    }));
    await Promise.all([
      t.context.payments.onOrderStatusChanges(again),
      t.context.payments.onOrderStatusChanges(again),
      t.context.orders.announcementsSettled(),
      ...Array.from({ length: 3 }, () => topUp(seller, 1500)),
    ]);
    const { balance, entries } = await expectLedgerConsistent(seller.userId);
    let fromWallet = 0;
    for (const orderId of orderIds) {
      const paid = (await chargesOf(seller, orderId)).filter((c) => c.status === 'succeeded');
      // Exactly one paid charge per order, by the balance or by the card, never both.
      expect(paid).toHaveLength(1);
      const debits = entries.filter((entry) => entry.orderId === orderId && entry.kind === 'charge');
      if (paid[0].provider === 'wallet') {
        fromWallet++;
        expect(debits.map((d) => d.amountCents)).toEqual([-paid[0].amountCents]);
      } else expect(debits).toHaveLength(0);
    }
    expect(fromWallet).toBeGreaterThan(0);
    const byHand = entries.filter((e) => e.kind === 'top_up' && e.description === 'Top-up');
    expect(byHand.reduce((sum, e) => sum + e.amountCents, 0)).toBe(2000 + (topUps + 3) * 1500);
    // Each automatic top-up was asked once per fall (its own key) and credited once.
    const automatic = await t.context.db
      .select()
      .from(walletTopUp)
      .where(and(eq(walletTopUp.ownerId, seller.userId), eq(walletTopUp.automatic, true)));
    expect(automatic.length).toBeGreaterThan(0);
    expect(new Set(automatic.map((row) => row.idempotencyKey)).size).toBe(automatic.length);
    const recharged = entries.filter((e) => e.kind === 'top_up' && e.description === 'Auto-recharge');
    expect(recharged).toHaveLength(automatic.filter((row) => row.status === 'succeeded').length);
    const topUpTotal = byHand.concat(recharged).reduce((sum, e) => sum + e.amountCents, 0);
    const [walletCharges] = await t.context.db
      .select({ cents: sql<string>`coalesce(sum(${charge.amountCents}), 0)` })
      .from(charge)
      .where(and(eq(charge.ownerId, seller.userId), eq(charge.provider, 'wallet')));
    expect(balance).toBe(topUpTotal - Number(walletCharges!.cents));
    await expectReceiptsGapless();
  }, 120_000);
});

describe('receipts, statements and exports', () => {
  it('a paid charge without its receipt (made before receipts, or a listener that failed) gets one from the sweep, once', async () => {
    const seller = await sellerWith(null);
    const [made] = await t.context.db
      .insert(charge)
      .values({
        ownerId: seller.userId,
        kind: 'manual',
        amountCents: 1234,
        provider: 'sandbox',
        idempotencyKey: `manual:${randomUUID()}`,
        paymentIntentId: `pi_${randomUUID()}`,
        status: 'succeeded',
        createdAt: new Date(Date.now() - 3_600_000),
        updatedAt: new Date(Date.now() - 3_600_000),
      })
      .returning();
    await Promise.all([t.context.wallet.recover(0), t.context.wallet.recover(0)]);
    const issued = await t.context.db.select().from(receipt).where(eq(receipt.source, `charge:${made!.id}`));
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ kind: 'charge', paidWith: 'card', amountCents: 1234 });
    await expectReceiptsGapless();
  });

  it('PDFs for the owner (and admins) only; the statement and CSVs; business details set by admins', async () => {
    const details = { legalName: 'Okafor Print Farm LLC', address: '12 Filament Way\nDayton, OH 45402', email: 'billing@okafor.test', taxId: 'US-99-1234567' };
    const seller = await sellerWith(VISA);
    expect((await put(seller, '/api/admin/site/business-details', details)).status).toBe(403);
    const saved = await put(admin, '/api/admin/site/business-details', details);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ sample: false, details: { legalName: 'Okafor Print Farm LLC' } });
    expect((await put(admin, '/api/admin/site/business-details', { ...details, email: 'nope' })).status).toBe(400);

    const made = await topUp(seller, 1234);
    const number = made.body.receiptNumber as number;
    const [stored] = await t.context.db.select().from(receipt).where(eq(receipt.number, number));
    expect(stored!.issuer).toMatchObject({ name: 'Okafor Print Farm LLC', taxId: 'US-99-1234567' });
    expect(stored!.customer.email).toBe(seller.email);

    const pdf = await seller.get(`/api/wallet/receipts/${number}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(String(pdf.body).startsWith('%PDF-')).toBe(true);
    expect((await admin.get(`/api/wallet/receipts/${number}/pdf`)).status).toBe(200);
    const other = await t.signUp({ role: 'beta' });
    expect((await other.get(`/api/wallet/receipts/${number}/pdf`)).status).toBe(404);
    expect((await seller.get('/api/wallet/receipts/999999999/pdf')).status).toBe(404);
    expect((await seller.get('/api/wallet/receipts/abc/pdf')).status).toBe(400);

    const month = new Date().toISOString().slice(0, 7);
    const statement = await seller.get(`/api/wallet/statements/${month}/pdf`);
    expect(statement.status).toBe(200);
    expect(String(statement.body).startsWith('%PDF-')).toBe(true);
    expect((await seller.get('/api/wallet/statements/2026-13/pdf')).status).toBe(400);
    expect((await seller.get('/api/wallet/statements/2999-01/pdf')).status).toBe(422);

    const ledger = await seller.get('/api/wallet/entries.csv');
    expect(ledger.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = String(ledger.body).trim().split('\r\n');
    expect(lines[0]).toBe('date,kind,description,amount,balance_after,currency,receipt,order_id');
    expect(lines[1]).toContain(',top_up,Top-up,12.34,12.34,USD,R-');
    // A text a spreadsheet would run as a formula is exported as text.
    expect((await admin.post('/api/wallet/adjustments', { targetUserId: seller.userId, amountCents: 100, reason: '=HYPERLINK("http://evil.test")', requestId: randomUUID() })).status).toBe(200);
    const exported = String((await seller.get('/api/wallet/entries.csv')).body);
    expect(exported).toContain(`"'=HYPERLINK(""http://evil.test"")",1.00,13.34`);
    const receipts = await seller.get('/api/wallet/receipts.csv');
    expect(String(receipts.body)).toContain(`R-${String(number).padStart(6, '0')}`);
    expect((await other.get(`/api/wallet/entries.csv?targetUserId=${seller.userId}`)).status).toBe(403);
  });
});
