import {
  affiliateCodeProblem,
  formatCents,
  RESERVED_AFFILIATE_CODES,
  type AdminAffiliatesPage,
  type AffiliateConnect,
  type AffiliateEarningsPage,
  type AffiliatePayout,
  type ConnectStatus,
  type OnboardingLink,
  type PayoutRun,
  type PayoutSkip,
  type UserAffiliates,
} from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { OrderStatusChangeEvent } from '../orders/order-service.ts';
import type { ChargeChangedEvent, RefundSucceededEvent } from '../payments/payment-events.ts';
import {
  PaymentAuthError,
  PaymentRejectedError,
  PaymentUnavailableError,
  type ConnectedAccount,
  type PaymentProvider,
} from '../payments/payment-provider.ts';
import type { AffiliateRepository, AffiliateRow, PayoutRow } from './affiliate-repository.ts';

/** Who is asking, as the routes resolve it. */
export interface AffiliateViewer {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

/** The Connect half of the payments port. */
export type ConnectProvider = Pick<
  PaymentProvider,
  | 'testMode'
  | 'createConnectedAccount'
  | 'createAccountLink'
  | 'getConnectedAccount'
  | 'createTransfer'
  | 'completeTestOnboarding'
>;

/** The notifications module's notify, as far as affiliates use it. */
export interface AffiliateNotifier {
  notify(request: {
    userId: string;
    template: 'affiliate_earning';
    vars: { amount: string; orderNumber: string | null; referredSeller: string; affiliateLinksUrl: string };
    dedupeKey: string;
  }): Promise<unknown>;
}

export interface AffiliateSettings {
  /** AFFILIATE_SHARE_PERCENT: the share of fulfilment revenue (10 = 10 %). */
  readonly sharePercent: number;
  /** AFFILIATE_PERIOD_MONTHS: how long a referred seller's orders earn. */
  readonly periodMonths: number;
  /** AFFILIATE_HOLD_DAYS: days after delivery before an earning may be paid (refunds come first). */
  readonly holdDays: number;
}

export interface AffiliateServiceDeps {
  readonly repository: AffiliateRepository;
  readonly audit: AuditRepository;
  readonly provider: ConnectProvider;
  readonly settings: AffiliateSettings;
  /** PUBLIC_URL: share links are absolute with it; else paths of this site. */
  readonly publicUrl: string | undefined;
  /** Where links in emails point (PUBLIC_URL, else this server's local address). */
  readonly emailBaseUrl?: string | undefined;
  /** Optional: an email per new earning. */
  readonly notifications?: AffiliateNotifier | undefined;
  /** The clock (tests move it past the holding period). */
  readonly now?: () => Date;
  readonly log?: { error(obj: unknown, msg?: string): void };
}

const SIGN_UPS_SHOWN = 100;
const SWEEP_BATCH = 500;
/** Sign-ups the sweep still attaches (a sign-up whose hook failed); older ones are left alone. */
const UNATTACHED_WINDOW_MS = 7 * 24 * 3600 * 1000;

const addMonths = (date: Date, months: number): Date => {
  const next = new Date(date);
  next.setUTCMonth(next.getUTCMonth() + months);
  return next;
};

/** The first instant after the month `YYYY-MM` (UTC). */
const endOfPeriod = (period: string): Date => {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 1));
};

/** A code from a name: its letters and digits, words joined by dashes ("Ada's Prints" → "adas-prints"). */
export function codeFromName(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let code = '';
  for (const word of words) {
    const next = code ? `${code}-${word}` : word;
    if (next.length > 24) break;
    code = next;
  }
  if (code.length < 3 || RESERVED_AFFILIATE_CODES.includes(code)) code = `maker${code ? `-${code}` : ''}`;
  return code.slice(0, 24).replace(/-+$/, '');
}

const statusOf = (account: ConnectedAccount): ConnectStatus => {
  if (account.payoutsEnabled && account.detailsSubmitted) return 'active';
  if (account.detailsSubmitted) return 'restricted';
  return 'pending';
};

const toPayout = (row: PayoutRow): AffiliatePayout => ({
  id: row.id,
  affiliateId: row.affiliateId,
  code: row.code,
  name: row.name,
  period: row.period,
  amountCents: row.amountCents,
  currency: row.currency,
  status: row.status,
  entriesCount: row.entriesCount,
  transferId: row.transferId,
  error: row.error,
  approvedBy: row.approvedBy,
  createdAt: row.createdAt.toISOString(),
  paidAt: row.paidAt?.toISOString() ?? null,
});

/**
 * Affiliates (docs/affiliates.md): codes, referrals at sign-up, the ledger fed by the payments
 * module's events (an earning per succeeded order charge of a referred seller within the period, a
 * reversal per refund), payable after delivery + the holding period, and monthly payouts to Stripe
 * Connect accounts that an admin proposes and approves.
 */
export function createAffiliateService(deps: AffiliateServiceDeps) {
  const { repository, audit, provider, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const site = deps.publicUrl ?? '';
  const shareBps = Math.round(settings.sharePercent * 100);

  /** The caller's affiliate, made on first use with a code from their name (unique: a number or random suffix when taken). */
  async function ensure(viewer: Pick<AffiliateViewer, 'id' | 'name'>): Promise<AffiliateRow> {
    const existing = await repository.find(viewer.id);
    if (existing) return existing;
    const base = codeFromName(viewer.name);
    const candidates = [base, ...[2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${base}-${n}`)];
    for (let attempt = 0; attempt < 20; attempt++) {
      const code = candidates[attempt] ?? `${base}-${Math.random().toString(36).slice(2, 7)}`;
      const created = await repository.insert(viewer.id, code);
      if (created) return created;
      // The user's own row made meanwhile (a second tab) also answers null: read it back first.
      const raced = await repository.find(viewer.id);
      if (raced) return raced;
    }
    throw new AppError('unavailable', 'Could not choose a referral code; try again');
  }

  function connectOf(row: AffiliateRow, requirementsDue: readonly string[] = []): AffiliateConnect {
    return {
      status: row.connectStatus,
      requirementsDue: [...requirementsDue],
      payoutsHeld: row.payoutsHeld,
      testMode: provider.testMode,
    };
  }

  async function visibleAffiliate(viewer: AffiliateViewer, affiliateId: string): Promise<AffiliateRow> {
    // Someone else's ledger answers exactly like a missing one.
    if (affiliateId !== viewer.id && !viewer.isAdmin) throw notFound('Affiliate');
    const row = await repository.find(affiliateId);
    if (!row) throw notFound('Affiliate');
    return row;
  }

  async function changeCode(userId: string, code: string): Promise<AffiliateRow> {
    const problem = affiliateCodeProblem(code);
    if (problem) throw new AppError('bad-request', problem);
    const holder = await repository.findByCode(code);
    if (holder && holder.userId !== userId)
      throw new AppError('conflict', `The code "${code}" is taken; choose another`);
    if (!(await repository.updateCode(userId, code)))
      throw new AppError('conflict', `The code "${code}" is taken; choose another`);
    return (await repository.find(userId))!;
  }

  /** A provider call from a request: its failures in the user's words. */
  async function connectCall<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof PaymentUnavailableError)
        throw new AppError('unavailable', 'Stripe did not answer; try again in a minute', { cause: error });
      if (error instanceof PaymentAuthError) {
        deps.log?.error({ err: error }, 'the payment provider refused our API key');
        throw new AppError('unavailable', 'Payouts are not available right now', { cause: error });
      }
      if (error instanceof PaymentRejectedError)
        throw new AppError('unprocessable', error.message, { cause: error });
      throw error;
    }
  }

  const isMissingAccount = (error: unknown) =>
    error instanceof AppError &&
    error.cause instanceof PaymentRejectedError &&
    error.cause.code === 'resource_missing';

  /**
   * Reads the account at the provider and stores what it says (active / pending / restricted). An
   * account the provider no longer has (deleted or rejected in the Stripe dashboard) is forgotten:
   * the next "Set up payouts" makes a new one.
   */
  async function refreshConnect(row: AffiliateRow): Promise<AffiliateConnect> {
    if (!row.connectAccountId) return connectOf(row);
    let account: ConnectedAccount;
    try {
      account = await connectCall(() => provider.getConnectedAccount(row.connectAccountId!));
    } catch (error) {
      if (!isMissingAccount(error)) throw error;
      await repository.forgetConnectAccount(row.userId, row.connectAccountId);
      return connectOf({ ...row, connectAccountId: null, connectStatus: 'none' });
    }
    const status = statusOf(account);
    if (status !== row.connectStatus) await repository.setConnectStatus(row.userId, status);
    return connectOf({ ...row, connectStatus: status }, account.requirementsDue);
  }

  async function tellEarnings(
    earnings: Awaited<ReturnType<AffiliateRepository['insertEarnings']>>,
  ): Promise<void> {
    if (!deps.notifications) return;
    for (const earning of earnings) {
      try {
        await deps.notifications.notify({
          userId: earning.affiliateId,
          template: 'affiliate_earning',
          vars: {
            amount: formatCents(earning.amountCents, earning.currency),
            orderNumber: earning.orderNumber,
            referredSeller: earning.referredSeller,
            affiliateLinksUrl: `${deps.emailBaseUrl ?? site}/affiliate-links`,
          },
          dedupeKey: `affiliate_earning:${earning.id}`,
        });
      } catch (error) {
        // The earning is recorded; a lost email is not worth failing the ledger for.
        deps.log?.error({ err: error, earningId: earning.id }, 'could not send the affiliate earning email');
      }
    }
  }

  async function ensureAdminTarget(userId: string): Promise<AffiliateRow> {
    const row = await repository.find(userId);
    if (!row) throw notFound('Affiliate');
    return row;
  }

  async function run(period: string): Promise<PayoutRun> {
    return { period, payouts: (await repository.payoutsOf(period)).map(toPayout), skipped: [] };
  }

  /** getUserAffiliates: the caller's code, share link, sign-ups, orders, totals and payouts account. */
  async function dashboard(viewer: AffiliateViewer): Promise<UserAffiliates> {
    const row = await ensure(viewer);
    const [signUps, totals] = await Promise.all([
      repository.signUps(row.userId, SIGN_UPS_SHOWN),
      repository.totals(row.userId, now()),
    ]);
    return {
      affiliateId: row.userId,
      code: row.code,
      shareLink: `${site}/?ref=${encodeURIComponent(row.code)}`,
      sharePercent: settings.sharePercent,
      periodMonths: settings.periodMonths,
      holdDays: settings.holdDays,
      signUpsCount: signUps.count,
      signUps: signUps.items.map((item) => ({
        name: item.name,
        joinedAt: item.joinedAt.toISOString(),
        endsAt: item.endsAt.toISOString(),
        ordersCount: item.orders,
        earnedCents: item.earned,
      })),
      ordersCount: signUps.orders,
      totals: {
        pendingCents: totals.pendingCents,
        payableCents: totals.payableCents,
        paidCents: totals.paidCents,
        currency: totals.currency ?? 'USD',
      },
      connect: connectOf(row),
    };
  }

  /**
   * At sign-up: attaches the new user to the affiliate whose code they came with (`user.affiliateRef`).
   * An unknown code or the user's own is ignored; the first attachment stands.
   */
  async function attachReferral(userId: string): Promise<boolean> {
    const signedUp = await repository.userOf(userId);
    const ref = signedUp?.affiliateRef?.trim();
    if (!signedUp || !ref) return false;
    const owner = await repository.findByCode(ref);
    if (!owner || owner.userId === userId) return false;
    return repository.insertReferral({
      referredUserId: userId,
      affiliateId: owner.userId,
      code: owner.code,
      shareBps,
      createdAt: signedUp.createdAt,
      endsAt: addMonths(signedUp.createdAt, settings.periodMonths),
    });
  }

  return {
    ensure,
    dashboard,
    attachReferral,

    /** getUserAffiliateEarnings(affiliateId): the ledger, newest first; the caller's own (admins: anyone's). */
    async earnings(
      viewer: AffiliateViewer,
      affiliateId: string,
      query: { cursor?: string | undefined; limit: number },
    ): Promise<AffiliateEarningsPage> {
      const row = await visibleAffiliate(viewer, affiliateId);
      const at = now();
      const page = await repository.ledger(row.userId, query);
      return {
        nextCursor: page.nextCursor,
        items: page.items.map((item) => ({
          id: item.id,
          kind: item.kind,
          amountCents: item.amountCents,
          currency: item.currency,
          state: item.paid ? 'paid' : item.payableAt && item.payableAt <= at ? 'payable' : 'pending',
          orderId: item.orderId,
          orderNumber: item.orderNumber,
          referredSeller: item.referredSeller,
          createdAt: item.createdAt.toISOString(),
          payableAt: item.payableAt?.toISOString() ?? null,
          paidAt: item.paidAt?.toISOString() ?? null,
        })),
      };
    },

    /** updateUserAffiliateCode(affiliateCode). Links shared with the old code stop counting. */
    async updateCode(viewer: AffiliateViewer, code: string): Promise<UserAffiliates> {
      await ensure(viewer);
      await changeCode(viewer.id, code.trim());
      return dashboard(viewer);
    },

    /** The payments module's charge events: a succeeded order charge of a referred seller earns, once. */
    async onChargeChanged(event: ChargeChangedEvent): Promise<void> {
      if ((event.to !== 'succeeded' && event.to !== 'refunded') || !event.orderId) return;
      await tellEarnings(
        await repository.insertEarnings({ chargeId: event.chargeId, holdDays: settings.holdDays, limit: 1 }),
      );
    },

    /** A succeeded refund reverses its share of the charge's earning, once. */
    async onRefundSucceeded(event: RefundSucceededEvent): Promise<void> {
      await repository.insertReversals({ refundId: event.refundId, limit: 1 });
    },

    /** The orders' announcements: a delivered order's entries become payable after the holding period. */
    async onOrderStatusChanges(
      events: readonly Pick<OrderStatusChangeEvent, 'orderId' | 'to'>[],
    ): Promise<void> {
      for (const event of events)
        if (event.to === 'delivered')
          await repository.settlePayable({ orderId: event.orderId, holdDays: settings.holdDays });
    },

    /**
     * What a crash between a change and its listener missed: sign-ups not attached, succeeded charges
     * with no earning, refunds with no reversal, delivered orders whose entries have no payable date.
     */
    async sweep(): Promise<{ referrals: number; earnings: number; reversals: number; settled: number }> {
      let referrals = 0;
      for (const userId of await repository.unattachedSignUps(
        new Date(now().getTime() - UNATTACHED_WINDOW_MS),
        SWEEP_BATCH,
      ))
        if (await attachReferral(userId)) referrals += 1;
      const earnings = await repository.insertEarnings({ holdDays: settings.holdDays, limit: SWEEP_BATCH });
      await tellEarnings(earnings);
      const reversals = await repository.insertReversals({ limit: SWEEP_BATCH });
      const settled = await repository.settlePayable({ holdDays: settings.holdDays });
      return { referrals, earnings: earnings.length, reversals, settled };
    },

    // ── Connect ──

    /**
     * createStripeOnboardingLink: the Express account is made once (kept on the affiliate) and each
     * call answers a fresh one-time link. `origin` is where Stripe sends the browser back.
     */
    async onboardingLink(viewer: AffiliateViewer, origin: string): Promise<OnboardingLink> {
      const row = await ensure(viewer);
      const base = deps.publicUrl ?? origin;
      const linkFor = (accountId: string) =>
        connectCall(() =>
          provider.createAccountLink({
            accountId,
            returnUrl: `${base}/affiliate-links?connect=return`,
            refreshUrl: `${base}/affiliate-links?connect=refresh`,
          }),
        );
      /** The first account's key is fixed (a retry makes the same account); a replacement's is new. */
      const newAccount = async (replacement: boolean) => {
        const created = await connectCall(() =>
          provider.createConnectedAccount({
            userId: viewer.id,
            email: viewer.email,
            idempotencyKey: `affiliate:${viewer.id}:connect-account${replacement ? `:${Date.now()}` : ''}`,
          }),
        );
        return repository.setConnectAccount(viewer.id, created.accountId);
      };
      if (!row.connectAccountId) return linkFor(await newAccount(false));
      try {
        return await linkFor(row.connectAccountId);
      } catch (error) {
        if (!isMissingAccount(error)) throw error;
        await repository.forgetConnectAccount(viewer.id, row.connectAccountId);
        return linkFor(await newAccount(true));
      }
    },

    /** The payouts account as the provider sees it now (the return page's look). */
    async connectStatus(viewer: AffiliateViewer): Promise<AffiliateConnect> {
      return refreshConnect(await ensure(viewer));
    },

    /** The sandbox's onboarding page (test mode only): the tester finishes onboarding, fully or with a detail failing. */
    async completeSandboxOnboarding(
      viewer: AffiliateViewer,
      outcome: 'complete' | 'restricted',
    ): Promise<AffiliateConnect> {
      const row = await ensure(viewer);
      if (!provider.completeTestOnboarding) throw notFound('Sandbox onboarding');
      if (!row.connectAccountId) throw new AppError('conflict', 'Start with "Set up payouts"');
      await connectCall(() => provider.completeTestOnboarding!(row.connectAccountId!, outcome));
      return refreshConnect(row);
    },

    // ── admins ──

    async list(query: { cursor?: string | undefined; limit: number }): Promise<AdminAffiliatesPage> {
      const page = await repository.list({ ...query, now: now() });
      return {
        nextCursor: page.nextCursor,
        // One currency: the platform charges in USD (docs/affiliates.md).
        items: page.items.map((item) => ({
          ...item,
          totals: { ...item.totals, currency: 'USD' },
          createdAt: item.createdAt.toISOString(),
        })),
      };
    },

    async adminUpdateCode(admin: AffiliateViewer, userId: string, code: string): Promise<void> {
      const before = await ensureAdminTarget(userId);
      const after = await changeCode(userId, code.trim());
      await audit.record({
        actorId: admin.id,
        targetUserId: userId,
        action: 'affiliate.code_changed',
        detail: { from: before.code, to: after.code },
        requestId: admin.requestId,
      });
    },

    async setHeld(admin: AffiliateViewer, userId: string, held: boolean): Promise<void> {
      await ensureAdminTarget(userId);
      await repository.setHeld(userId, held);
      await audit.record({
        actorId: admin.id,
        targetUserId: userId,
        action: held ? 'affiliate.payouts_held' : 'affiliate.payouts_released',
        requestId: admin.requestId,
      });
    },

    /** The period's payouts as they stand. */
    payoutRun: run,

    /**
     * Proposes the month's payouts: each affiliate's payable entries not yet in a payout, by the end
     * of the month (or now, for the current month). Held, not onboarded and nothing-to-pay balances
     * are left out, with the reason; they stay for a later run.
     */
    async proposeRun(admin: AffiliateViewer, period: string): Promise<PayoutRun> {
      const at = now();
      const end = endOfPeriod(period);
      const [year, month] = period.split('-').map(Number) as [number, number];
      if (Date.UTC(year, month - 1, 1) > at.getTime())
        throw new AppError('bad-request', 'That month has not started yet');
      const cutoff = end < at ? end : at;
      const skipped: PayoutSkip[] = [];
      for (const balance of await repository.balances(cutoff)) {
        const skip = (reason: string) =>
          skipped.push({
            affiliateId: balance.affiliateId,
            code: balance.code,
            amountCents: balance.amountCents,
            reason,
          });
        if (balance.payoutsHeld) skip('Payouts are held by an admin');
        else if (balance.connectStatus === 'none' || !balance.connectAccountId)
          skip('No payouts account: Stripe Connect onboarding not started');
        else if (balance.connectStatus === 'pending') skip('Stripe Connect onboarding not finished');
        else if (balance.connectStatus === 'restricted')
          skip('Stripe needs more details before paying out (account restricted)');
        else if (balance.currencies.length !== 1)
          skip(`Earnings in several currencies (${balance.currencies.join(', ')}): pay by hand`);
        else if (balance.amountCents <= 0)
          skip('Nothing to pay: refunds exceed earnings; the balance carries over');
        else {
          const proposed = await repository.propose({
            affiliateId: balance.affiliateId,
            period,
            cutoff,
            currency: balance.currencies[0]!,
          });
          if ('existing' in proposed)
            skip(`The ${period} payout is already ${proposed.existing}; the rest waits for the next run`);
        }
      }
      const result = await run(period);
      await audit.record({
        actorId: admin.id,
        targetUserId: null,
        action: 'affiliate.payouts_proposed',
        detail: {
          period,
          proposed: result.payouts.filter((p) => p.status === 'proposed').length,
          skipped: skipped.length,
        },
        requestId: admin.requestId,
      });
      return { ...result, skipped };
    },

    /**
     * Approves the period's proposed payouts (or the ones named) and transfers each to its connected
     * account with idempotency key `payout:<id>`: a run repeated, or two at once, transfers once.
     * A payout whose affiliate was held or lost their account meanwhile is held (entries back to the
     * next run); a refusal is recorded as failed; no answer leaves it approved for the next approval.
     */
    async approveRun(
      admin: AffiliateViewer,
      period: string,
      payoutIds?: readonly string[],
    ): Promise<PayoutRun> {
      const payouts = await repository.payoutsOf(period, payoutIds);
      if (payoutIds && payouts.length !== payoutIds.length) throw notFound('Payout');
      for (const payout of payouts) {
        if (payout.status === 'paid' || payout.status === 'held') continue;
        const owner = (await repository.find(payout.affiliateId))!;
        const reason =
          payout.amountCents <= 0
            ? 'Nothing to pay: refunds exceed earnings'
            : owner.payoutsHeld
              ? 'Payouts are held by an admin'
              : owner.connectStatus !== 'active' || !owner.connectAccountId
                ? `The payouts account is ${owner.connectStatus === 'none' ? 'missing' : owner.connectStatus}`
                : null;
        if (reason) {
          // An approved one may have been transferred unheard: it waits, never given up, for the next approval.
          if (payout.status !== 'approved') await repository.holdPayout(payout.id, reason);
          continue;
        }
        const idempotencyKey = await repository.approve(payout.id, admin.id);
        if (!idempotencyKey) continue;
        try {
          const { transferId } = await provider.createTransfer({
            accountId: owner.connectAccountId!,
            amountCents: payout.amountCents,
            currency: payout.currency,
            idempotencyKey,
            metadata: { payout_id: payout.id, period, affiliate_id: payout.affiliateId },
          });
          if (await repository.markPaid(payout.id, transferId, now()))
            await audit.record({
              actorId: admin.id,
              targetUserId: payout.affiliateId,
              action: 'affiliate.payout_paid',
              detail: { payoutId: payout.id, period, amountCents: payout.amountCents, transferId },
              requestId: admin.requestId,
            });
        } catch (error) {
          const refused = error instanceof PaymentRejectedError || error instanceof PaymentAuthError;
          const message = error instanceof Error ? error.message : String(error);
          await repository.recordFailure(
            payout.id,
            refused
              ? message
              : `No answer from the payments provider (${message}); approve again to retry with the same key`,
            refused ? 'failed' : 'approved',
          );
          await audit.record({
            actorId: admin.id,
            targetUserId: payout.affiliateId,
            action: 'affiliate.payout_failed',
            detail: { payoutId: payout.id, period, error: message },
            requestId: admin.requestId,
          });
        }
      }
      return run(period);
    },

    /** Periods with payouts, newest first (the admin page's history). */
    recentPeriods: () => repository.recentPeriods(24),
  };
}

export type AffiliateService = ReturnType<typeof createAffiliateService>;
