import { randomUUID } from 'node:crypto';
import {
  PAYMENT_ACTION_HOLD_PREFIX,
  PAYMENT_HOLD_PREFIX,
  type BillingSettings,
  type ChargeDto,
  type ChargeKind,
  type ChargeListQuery,
  type ChargePage,
  type ChargeState,
  type ChargeStoredCardInput,
  type ChargeAuthentication,
  type OrderStatus,
  type PaymentProviderName,
  type RefundChargeInput,
  type SetupIntent,
  type StoredCardDto,
} from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import { decodeTimeIdCursor, timeIdKey } from '../../platform/time-id-keyset.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { EventActor, OrderRow } from '../orders/order-repository.ts';
import type { OrderStatusChangeEvent } from '../orders/order-service.ts';
import { itemsCentsOf, totalCentsOf, type OrderPrices } from './order-price.ts';
import type { ChargeChangedEvent, PaymentEventListeners, RefundSucceededEvent } from './payment-events.ts';
import {
  PaymentAuthError,
  PaymentRejectedError,
  PaymentUnavailableError,
  type ChargeResult,
  type PaymentProvider,
  type PaymentWebhookEvent,
} from './payment-provider.ts';
import {
  LIVE_CHARGE_STATES,
  type ChargeListRow,
  type ChargeRow,
  type NewCharge,
  type PaymentRepository,
  type RefundRow,
} from './payment-repository.ts';

/** Stripe's smallest charge (USD): an order that costs less is released without a charge. */
export const MIN_CHARGE_CENTS = 50;
/** A charge asked of the provider whose answer was not stored this long after is looked up again. */
const PENDING_RECHECK_MS = 2 * 60 * 1000;
/** Orders charged at once when a batch of orders is released together. */
const CHARGE_CONCURRENCY = 8;
/** Stripe's events for a refund of a charge (one made in its dashboard included); their object names the PaymentIntent. */
const REFUND_EVENTS: readonly string[] = ['charge.refunded', 'charge.refund.updated'];

export interface PaymentActor {
  readonly id: string;
  readonly isAdmin: boolean;
}

export interface PaymentServiceDeps {
  readonly repository: PaymentRepository;
  readonly provider: PaymentProvider;
  readonly publishableKey: string | null;
  /** Whether orders are charged when they are released to production. */
  readonly chargeOrders: boolean;
  readonly orders: {
    find(id: string): Promise<OrderRow | undefined>;
    tryTransition(order: OrderRow, to: OrderStatus, reason: string, actor: EventActor): Promise<boolean>;
    /** Rewrites the reason of an order still on hold (its cause changed while it stayed held). */
    setHoldReason(orderId: string, reason: string): Promise<void>;
  };
  /** The orders' one stored price (order-price.ts): the charge's amount, and its adjustment after the exact slice. */
  readonly prices: Pick<OrderPrices, 'priceOf' | 'settleExact'>;
  readonly sellers: { contactOf(id: string): Promise<{ email: string; name: string } | undefined> };
  /** The print farm: makes the jobs of a paid order (one that became paid while it stayed accepted). */
  readonly releaseToFarm: (orderId: string) => Promise<unknown>;
  readonly audit: AuditRepository;
  /** Absolute links in emails when PUBLIC_URL is set, else paths of this site. */
  readonly publicUrl: string | undefined;
  readonly log?: { error(obj: unknown, msg?: string): void };
  /**
   * The seller's prepaid balance (docs/wallet.md): an order is paid from it when it covers the order,
   * else by card; a charge paid from it is refunded into it.
   */
  readonly wallet?: {
    payOrder(values: NewCharge, orderNumber: string | null): Promise<ChargeRow | 'taken' | null>;
    refundToWallet(
      row: ChargeRow,
      amountCents: number,
      reason: string,
      idempotencyKey: string,
      orderNumber: string | null,
    ): Promise<{ refund: RefundRow; charge: ChargeRow } | undefined>;
  };
}

/** A charge paid from the seller's prepaid balance (no payment intent: nothing was asked of the provider). */
const WALLET = 'wallet';

const SYSTEM: EventActor = { kind: 'system', id: null };

/**
 * Payments (docs/payments.md): a seller's card, stored at the provider (a customer per seller, the
 * card made its default), and an order charged exactly once when it is released to production.
 *
 * Once per order: the charge row (with its idempotency key `order:<id>:charge:<attempt>`) is written
 * before the provider is asked, and an order has at most one live charge (a partial unique index), so
 * two processes releasing one order cannot both charge it; the provider is asked with the key, so a
 * retry of the same attempt is the same PaymentIntent; a row left `pending` by a crash is asked again
 * with the same key and parameters (the provider answers the first result) before anything else.
 * A decline or an authentication request is recorded and holds the order ("Payment failed: …"), the
 * seller is told, and only a new card (or their authentication) releases it — never an automatic retry.
 */
export function createPaymentService(deps: PaymentServiceDeps) {
  const { repository, provider, orders, audit } = deps;
  const chargeListeners: ((event: ChargeChangedEvent) => Promise<void>)[] = [];
  const refundListeners: ((event: RefundSucceededEvent) => Promise<void>)[] = [];
  const link = (path: string) => `${deps.publicUrl ?? ''}${path}`;
  /**
   * Events this process has seen settled: a provider's retries and bursts of one event are answered
   * without touching the database (the table stays the guard across processes).
   */
  const settledEvents = new Set<string>();
  const rememberSettled = (id: string) => {
    if (settledEvents.size >= 10_000) settledEvents.delete(settledEvents.values().next().value!);
    settledEvents.add(id);
  };
  const actionPath = (chargeId: string) => `/billing/authenticate/${chargeId}`;

  async function tell<E>(listeners: readonly ((event: E) => Promise<void>)[], event: E): Promise<void> {
    for (const listener of listeners) {
      try {
        await listener(event);
      } catch (error) {
        deps.log?.error({ err: error }, 'a payments listener failed');
      }
    }
  }

  async function changed(row: ChargeRow, from: ChargeState | null): Promise<void> {
    const order = row.orderId ? await orders.find(row.orderId) : undefined;
    await tell(chargeListeners, {
      chargeId: row.id,
      ownerId: row.ownerId,
      orderId: row.orderId,
      orderNumber: order?.externalId ?? null,
      kind: row.kind as ChargeKind,
      from,
      to: row.status as ChargeState,
      amountCents: row.amountCents,
      refundedCents: row.refundedCents,
      currency: row.currency,
      failureReason: row.failureReason,
      actionUrl: row.status === 'requires_action' ? link(actionPath(row.id)) : null,
    });
  }

  /* ---------- the seller's customer and card ---------- */

  async function customerFor(ownerId: string) {
    const existing = await repository.customerOf(ownerId);
    if (existing && existing.provider === provider.kind) return existing;
    const contact = await deps.sellers.contactOf(ownerId);
    if (!contact) throw notFound('Seller');
    const { customerId } = await call(() =>
      provider.createCustomer({ sellerId: ownerId, email: contact.email, name: contact.name }),
    );
    return existing
      ? repository.replaceCustomer(ownerId, provider.kind, customerId)
      : repository.insertCustomer(ownerId, provider.kind, customerId);
  }

  /** The seller's usable card: their default, stored with this server's provider. */
  async function cardOf(ownerId: string) {
    const customer = await repository.customerOf(ownerId);
    if (!customer || customer.provider !== provider.kind || !customer.paymentMethodId) return null;
    return customer as typeof customer & { paymentMethodId: string };
  }

  /** A provider failure as the caller should see it: the seller's doing (400-type) or try later (503). */
  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof PaymentRejectedError) throw new AppError('unprocessable', error.message);
      if (error instanceof PaymentUnavailableError)
        throw new AppError('unavailable', 'The payment provider did not answer; try again in a minute');
      if (error instanceof PaymentAuthError) {
        deps.log?.error({ err: error }, 'the payment provider refused our API key');
        throw new AppError('unavailable', 'Payments are not available right now');
      }
      throw error;
    }
  }

  /* ---------- charging ---------- */

  /** The order's hold reason for a charge that did not succeed. */
  const holdReasonOf = (result: { status: 'requires_action' | 'failed'; reason: string }) =>
    result.status === 'requires_action'
      ? `${PAYMENT_ACTION_HOLD_PREFIX}${result.reason} Open Billing to authenticate the payment.`
      : `${PAYMENT_HOLD_PREFIX}${result.reason} Add another card in Account settings to release the order.`;

  /** Holds an order whose own charge did not succeed (a failed charge by hand leaves the order as it is). */
  async function holdOrder(orderId: string, reason: string): Promise<void> {
    const current = await orders.find(orderId);
    if (current && (current.status === 'accepted' || current.status === 'received'))
      await orders.tryTransition(current, 'on_hold', reason, SYSTEM);
  }

  /**
   * Records the provider's answer on a pending (or processing) charge, once: the write that moves the
   * row is the one that acts (holds the order, tells the seller).
   */
  async function record(row: ChargeRow, result: ChargeResult): Promise<ChargeRow> {
    const from: ChargeState[] = ['pending', 'processing'];
    let next: ChargeRow | undefined;
    switch (result.status) {
      case 'succeeded':
        next = await repository.transitionCharge(row.id, from, 'succeeded', {
          paymentIntentId: result.paymentIntentId,
          // An adjustment keeps its reason: it is what Billing shows beside it.
          failureReason: row.kind === 'adjustment' ? row.failureReason : null,
        });
        break;
      case 'processing':
        next = await repository.transitionCharge(row.id, ['pending'], 'processing', {
          paymentIntentId: result.paymentIntentId,
        });
        break;
      case 'requires_action':
        next = await repository.transitionCharge(row.id, from, 'requires_action', {
          paymentIntentId: result.paymentIntentId,
          failureReason: result.declineReason,
          actionUrl: actionPath(row.id),
        });
        if (next?.orderId && next.kind === 'order')
          await holdOrder(
            next.orderId,
            holdReasonOf({
              status: 'requires_action',
              reason: result.declineReason ?? 'The card needs you to authenticate this payment.',
            }),
          );
        break;
      case 'requires_payment_method':
        next = await repository.transitionCharge(row.id, from, 'failed', {
          paymentIntentId: result.paymentIntentId,
          failureReason: result.declineReason,
        });
        if (next?.orderId && next.kind === 'order')
          await holdOrder(
            next.orderId,
            holdReasonOf({ status: 'failed', reason: result.declineReason ?? 'The card was declined.' }),
          );
        break;
    }
    if (!next) return (await repository.findCharge(row.id)) ?? row;
    await changed(next, row.status as ChargeState);
    return next;
  }

  /** Asks the provider for a pending charge, with its key and parameters: a repeat answers the first result. */
  async function ask(row: ChargeRow): Promise<ChargeRow> {
    let result: ChargeResult;
    try {
      result = await provider.chargeOffSession({
        customerId: row.customerId!,
        paymentMethodId: row.paymentMethodId!,
        amountCents: row.amountCents,
        currency: row.currency,
        idempotencyKey: row.idempotencyKey,
        metadata: { orderId: row.orderId ?? `manual:${row.id}`, attempt: row.attempt },
        description:
          row.kind === 'order' ? `Layerline fulfilment, order ${row.orderId}` : `Layerline charge ${row.id}`,
      });
    } catch (error) {
      if (error instanceof PaymentRejectedError) {
        // The request itself was refused (a card the provider no longer has, an amount it will not take): a failed attempt.
        const failed = await repository.transitionCharge(row.id, ['pending'], 'failed', {
          failureReason: error.message,
        });
        if (failed) {
          if (failed.orderId && failed.kind === 'order')
            await holdOrder(failed.orderId, holdReasonOf({ status: 'failed', reason: error.message }));
          await changed(failed, 'pending');
          return failed;
        }
        return (await repository.findCharge(row.id)) ?? row;
      }
      // No answer (or one we could not use): the row stays pending and is asked again with the same key.
      throw error;
    }
    return record(row, result);
  }

  /**
   * Charges an order released to production, once. Answers whether the order is paid (may be printed).
   * Throws only when the provider could not be asked (the announcement is retried; the charge stays pending).
   */
  async function chargeOrder(orderId: string): Promise<boolean> {
    const current = await orders.find(orderId);
    if (!current || current.status !== 'accepted') return false;
    const { live, attempts } = await repository.orderCharges(orderId);
    if (live) {
      if (live.status === 'pending') return (await ask(live)).status === 'succeeded';
      // Released by hand while the seller's authentication is still open: held again until they answer.
      if (live.status === 'requires_action')
        await holdOrder(
          orderId,
          holdReasonOf({
            status: 'requires_action',
            reason: live.failureReason ?? 'The card needs you to authenticate this payment.',
          }),
        );
      return live.status === 'succeeded';
    }
    const price = await deps.prices.priceOf(orderId);
    if (!price) {
      await holdOrder(
        orderId,
        `${PAYMENT_HOLD_PREFIX}the price of this order is not known yet (a part has no quote). An admin can charge it by hand and release it.`,
      );
      return false;
    }
    const total = totalCentsOf(price);
    const card = await cardOf(current.ownerId);
    const attempt = attempts + 1;
    const base = {
      ownerId: current.ownerId,
      orderId,
      kind: 'order',
      attempt,
      amountCents: total,
      currency: price.currency,
      breakdown: {
        itemsCents: itemsCentsOf(price),
        packagingCents: price.packagingCents,
        shippingCents: price.shippingCents,
      },
      provider: provider.kind,
      idempotencyKey: `order:${orderId}:charge:${attempt}`,
      createdBy: null,
    } as const;
    if (deps.wallet && total > 0) {
      const paid = await deps.wallet.payOrder({ ...base, customerId: null, paymentMethodId: null, status: 'succeeded', failureReason: null }, current.externalId);
      if (paid === 'taken') return (await repository.paidOrders([orderId])).has(orderId);
      if (paid) {
        await changed(paid, null);
        return true;
      }
    }
    if (total < MIN_CHARGE_CENTS) {
      // Nothing the provider would take: recorded as paid, with the reason, so the seller sees why.
      const row = await repository.insertCharge({
        ...base,
        customerId: null,
        paymentMethodId: null,
        status: 'succeeded',
        failureReason: 'Below the smallest card charge: not charged',
      });
      return row !== undefined || (await repository.paidOrders([orderId])).has(orderId);
    }
    if (!card) {
      const row = await repository.insertCharge({
        ...base,
        customerId: null,
        paymentMethodId: null,
        status: 'failed',
        failureReason: 'No card on file.',
      });
      if (row) {
        await holdOrder(orderId, holdReasonOf({ status: 'failed', reason: 'No card on file.' }));
        await changed(row, null);
      }
      return false;
    }
    const row = await repository.insertCharge({
      ...base,
      customerId: card.customerId,
      paymentMethodId: card.paymentMethodId,
      status: 'pending',
      failureReason: null,
    });
    // Taken: another process is charging this order (its result decides; the farm waits for it).
    if (!row) return (await repository.paidOrders([orderId])).has(orderId);
    return (await ask(row)).status === 'succeeded';
  }

  /** An order that just became paid while another status held it: released, or sent on to the farm. */
  async function afterPaid(row: ChargeRow): Promise<void> {
    if (!row.orderId || row.kind !== 'order') return;
    const current = await orders.find(row.orderId);
    if (!current) return;
    if (current.status === 'on_hold' && current.holdReason?.startsWith(PAYMENT_ACTION_HOLD_PREFIX)) {
      await orders.tryTransition(current, 'accepted', 'Payment authenticated', SYSTEM);
    } else if (current.status === 'accepted') {
      await deps.releaseToFarm(current.id);
    }
  }

  /**
   * An authentication the seller refused (or the bank failed): the order stays on hold, but its reason
   * no longer asks them to authenticate; it says the card was refused and what releases the order.
   */
  async function rewriteActionHold(row: ChargeRow): Promise<void> {
    if (!row.orderId || row.kind !== 'order') return;
    const current = await orders.find(row.orderId);
    if (current?.status !== 'on_hold' || !current.holdReason?.startsWith(PAYMENT_ACTION_HOLD_PREFIX)) return;
    await orders.setHoldReason(
      row.orderId,
      holdReasonOf({ status: 'failed', reason: row.failureReason ?? 'The card was refused when the payment was authenticated.' }),
    );
  }

  async function settle(row: ChargeRow, result: ChargeResult): Promise<ChargeRow> {
    const before = row.status;
    const next =
      result.status === 'succeeded' && row.status === 'requires_action'
        ? await repository.transitionCharge(row.id, ['requires_action'], 'succeeded', {
            failureReason: null,
            actionUrl: null,
          })
        : result.status === 'requires_payment_method' && row.status === 'requires_action'
          ? await repository.transitionCharge(row.id, ['requires_action'], 'failed', {
              failureReason: result.declineReason,
              actionUrl: null,
            })
          : undefined;
    if (next) {
      await changed(next, before as ChargeState);
      if (next.status === 'succeeded') await afterPaid(next);
      else await rewriteActionHold(next);
      return next;
    }
    const recorded = ['pending', 'processing'].includes(row.status) ? await record(row, result) : row;
    if (recorded.status === 'succeeded' && recorded !== row) await afterPaid(recorded);
    return recorded;
  }

  /* ---------- refunds ---------- */

  async function refundCharge(
    row: ChargeRow,
    amountCents: number,
    reason: string,
    requestId?: string,
  ): Promise<ChargeRow> {
    if (!paidThroughSomeone(row) || !['succeeded', 'refunded'].includes(row.status))
      throw new AppError('conflict', 'Only a paid charge can be refunded');
    const left = row.amountCents - row.refundedCents;
    if (amountCents > left)
      throw new AppError('unprocessable', `At most ${left} cents are left to refund on this charge`);
    if (amountCents <= 0) return row;
    // The same request twice names the same refund: one refund. All that is left can be refunded once.
    const key = requestId
      ? `refund:${row.id}:${requestId}`
      : amountCents === left
        ? `refund:${row.id}:rest:${row.refundedCents}`
        : `refund:${row.id}:${randomUUID()}`;
    if (row.provider === WALLET) {
      if (!deps.wallet) throw new AppError('unavailable', 'The wallet is not available');
      const order = row.orderId ? await orders.find(row.orderId) : undefined;
      const settled = await deps.wallet.refundToWallet(row, amountCents, reason, key, order?.externalId ?? null);
      if (settled) await refunded(settled);
      return (await repository.findCharge(row.id))!;
    }
    const { row: refundRow } = await repository.insertRefund({
      chargeId: row.id,
      ownerId: row.ownerId,
      amountCents,
      reason,
      idempotencyKey: key,
    });
    await askRefund(refundRow, row.paymentIntentId!);
    return (await repository.findCharge(row.id))!;
  }

  async function askRefund(refundRow: RefundRow, paymentIntentId: string): Promise<void> {
    if (refundRow.status !== 'pending') return;
    const result = await call(() =>
      provider.refund({
        paymentIntentId,
        amountCents: refundRow.amountCents,
        idempotencyKey: refundRow.idempotencyKey,
      }),
    );
    if (result.status === 'pending' || result.status === 'requires_action') return;
    const settled = await repository.settleRefund(
      refundRow.id,
      result.status === 'succeeded' ? 'succeeded' : 'failed',
      result.refundId,
    );
    if (settled?.refund.status === 'succeeded') await refunded(settled);
  }

  /** A refund that just succeeded (ours, or mirrored from the provider), told once: the affiliates' reversal, the seller's webhook and email, Billing. */
  async function refunded(settled: { refund: RefundRow; charge: ChargeRow }): Promise<void> {
    const order = settled.charge.orderId ? await orders.find(settled.charge.orderId) : undefined;
    await tell(refundListeners, {
      refundId: settled.refund.id,
      chargeId: settled.charge.id,
      ownerId: settled.charge.ownerId,
      orderId: settled.charge.orderId,
      orderNumber: order?.externalId ?? null,
      reason: settled.refund.reason,
      amountCents: settled.refund.amountCents,
      currency: settled.charge.currency,
      toBalance: settled.charge.provider === WALLET,
    });
    if (settled.charge.status === 'refunded') await changed(settled.charge, 'succeeded');
  }

  /**
   * A refund event (`charge.refunded`, `charge.refund.updated`): refunds made outside Layerline (in
   * Stripe's dashboard) are mirrored. The refunded total is read from the provider, never taken from
   * the event (an old event arriving late names an old total); what it has beyond ours is recorded
   * once as a succeeded refund (repository.recordProviderRefund).
   */
  async function mirrorProviderRefunds(row: ChargeRow): Promise<void> {
    let current = row;
    // The charge's own events may come after its refund's (Stripe does not order events): settled first.
    if (['pending', 'processing', 'requires_action'].includes(current.status))
      current = await settle(current, await provider.getPaymentIntent(current.paymentIntentId!));
    if (current.status !== 'succeeded' && current.status !== 'refunded') return;
    const providerRefundedCents = await provider.getRefundedAmount(current.paymentIntentId!);
    if (providerRefundedCents <= current.refundedCents) return;
    const recorded = await repository.recordProviderRefund({
      chargeId: current.id,
      providerRefundedCents,
      reason: provider.kind === 'stripe' ? 'Refunded on Stripe' : 'Refunded at the payment provider',
      idempotencyKey: `provider-refund:${current.id}:total:${providerRefundedCents}`,
    });
    if (recorded) await refunded(recorded);
  }

  /* ---------- reading ---------- */

  async function dtos(rows: readonly ChargeListRow[]): Promise<ChargeDto[]> {
    const refunds = await repository.refundsOf(rows.map((row) => row.charge.id));
    return rows.map(({ charge: row, sellerName, orderNumber }) => ({
      id: row.id,
      ownerId: row.ownerId,
      sellerName,
      orderId: row.orderId,
      orderNumber,
      kind: row.kind as ChargeKind,
      attempt: row.attempt,
      amountCents: row.amountCents,
      currency: row.currency,
      breakdown: row.breakdown ?? null,
      provider: row.provider as PaymentProviderName | 'wallet',
      status: row.status as ChargeState,
      failureReason: row.failureReason,
      actionUrl: row.status === 'requires_action' ? actionPath(row.id) : null,
      refundedCents: row.refundedCents,
      refunds: refunds
        .filter((r) => r.chargeId === row.id)
        .map((r) => ({
          id: r.id,
          chargeId: r.chargeId,
          amountCents: r.amountCents,
          reason: r.reason,
          status: r.status,
          createdAt: r.createdAt.toISOString(),
        })),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    }));
  }

  async function chargeDto(id: string): Promise<ChargeDto> {
    const listed = await repository.findChargeListRow(id);
    if (!listed) throw notFound('Charge');
    return (await dtos([listed]))[0]!;
  }

  async function visibleCharge(actor: PaymentActor, id: string): Promise<ChargeRow> {
    const row = await repository.findCharge(id);
    // Another seller's charge answers like a missing one.
    if (!row || (!actor.isAdmin && row.ownerId !== actor.id)) throw notFound('Charge');
    return row;
  }

  async function releaseHeldOrders(ownerId: string): Promise<number> {
    let released = 0;
    for (const { id } of await repository.paymentHeldOrders(ownerId)) {
      const current = await orders.find(id);
      if (!current || current.status !== 'on_hold') continue;
      // An authentication still open for it is replaced by a charge on the new card.
      const { live } = await repository.orderCharges(id);
      if (live?.status === 'requires_action')
        await repository.transitionCharge(live.id, ['requires_action'], 'failed', {
          failureReason: 'Replaced by a charge on a new card',
          actionUrl: null,
        });
      if (await orders.tryTransition(current, 'accepted', 'A new card was added', SYSTEM)) released++;
    }
    return released;
  }

  const service = {
    provider: provider.kind,
    testMode: provider.testMode,
    chargeOrders: deps.chargeOrders,

    onChargeChanged(listener: (event: ChargeChangedEvent) => Promise<void>): void {
      chargeListeners.push(listener);
    },
    onRefundSucceeded(listener: (event: RefundSucceededEvent) => Promise<void>): void {
      refundListeners.push(listener);
    },

    async billing(ownerId: string): Promise<BillingSettings> {
      const [card, held, needingAction] = await Promise.all([
        cardOf(ownerId),
        repository.paymentHeldOrders(ownerId),
        repository.chargesNeedingAction(ownerId),
      ]);
      return {
        provider: provider.kind,
        testMode: provider.testMode,
        publishableKey: provider.kind === 'stripe' ? deps.publishableKey : null,
        chargesOrders: deps.chargeOrders,
        card: card
          ? {
              brand: card.cardBrand ?? 'card',
              last4: card.cardLast4 ?? '',
              expMonth: card.cardExpMonth ?? 0,
              expYear: card.cardExpYear ?? 0,
            }
          : null,
        heldOrders: held.length,
        actionsNeeded: needingAction.map(({ charge: row, orderNumber }) => ({
          chargeId: row.id,
          orderId: row.orderId,
          orderNumber,
          amountCents: row.amountCents,
          currency: row.currency,
        })),
      };
    },

    /** The spec's createSetupIntent. */
    async createSetupIntent(ownerId: string): Promise<SetupIntent> {
      const customer = await customerFor(ownerId);
      const intent = await call(() =>
        provider.createSetupIntent({
          customerId: customer.customerId,
          idempotencyKey: `setup:${ownerId}:${randomUUID()}`,
        }),
      );
      return {
        provider: provider.kind,
        setupIntentId: intent.setupIntentId,
        clientSecret: intent.clientSecret,
        publishableKey: provider.kind === 'stripe' ? deps.publishableKey : null,
        testMode: provider.testMode,
      };
    },

    /** The spec's storeDefaultPaymentMethod: the card becomes the default; orders held for payment are released. */
    async storeDefaultPaymentMethod(ownerId: string, paymentMethodId: string): Promise<StoredCardDto> {
      const customer = await customerFor(ownerId);
      const card = await call(() =>
        provider.attachDefaultPaymentMethod({ customerId: customer.customerId, paymentMethodId }),
      );
      await repository.storeCard(ownerId, card);
      await audit.record({
        actorId: ownerId,
        targetUserId: ownerId,
        action: 'payments.card-stored',
        detail: { brand: card.brand, last4: card.last4 },
      });
      const releasedOrders = await releaseHeldOrders(ownerId);
      return {
        brand: card.brand,
        last4: card.last4,
        expMonth: card.expMonth,
        expYear: card.expYear,
        releasedOrders,
      };
    },

    async listCharges(actor: PaymentActor, query: ChargeListQuery, subjectId: string): Promise<ChargePage> {
      const after = decodeTimeIdCursor(query.cursor, 'uuid');
      // Admins see everyone's unless they name a seller; a seller only their own.
      const ownerId = actor.isAdmin && !query.targetUserId ? undefined : subjectId;
      const rows = await repository.listCharges({
        ownerId,
        orderId: query.orderId,
        after,
        limit: query.limit,
      });
      const page = pageFrom(
        rows,
        query.limit,
        (row) => timeIdKey(row.micros, row.charge.id),
        (row) => row,
      );
      return { items: await dtos(page.items), nextCursor: page.nextCursor };
    },

    async authentication(actor: PaymentActor, chargeId: string): Promise<ChargeAuthentication> {
      const row = await visibleCharge(actor, chargeId);
      let clientSecret: string | null = null;
      if (row.status === 'requires_action' && row.paymentIntentId && provider.kind === 'stripe')
        clientSecret = (await call(() => provider.getPaymentIntent(row.paymentIntentId!))).clientSecret;
      return {
        charge: await chargeDto(row.id),
        provider: provider.kind,
        clientSecret,
        publishableKey: provider.kind === 'stripe' ? deps.publishableKey : null,
      };
    },

    /** After the seller authenticated in their browser (or, in test mode, answered the sandbox): the charge read back. */
    async confirm(
      actor: PaymentActor,
      chargeId: string,
      sandboxOutcome: 'approve' | 'refuse' | undefined,
    ): Promise<ChargeDto> {
      const row = await visibleCharge(actor, chargeId);
      if (actor.isAdmin && row.ownerId !== actor.id)
        await audit.record({
          actorId: actor.id,
          targetUserId: row.ownerId,
          action: 'payments.charge-confirmed',
          detail: { chargeId, sandboxOutcome: sandboxOutcome ?? null },
        });
      if (!row.paymentIntentId || !['requires_action', 'processing', 'pending'].includes(row.status))
        return chargeDto(row.id);
      const result =
        sandboxOutcome && provider.completeTestAuthentication
          ? await call(() =>
              provider.completeTestAuthentication!(row.paymentIntentId!, sandboxOutcome === 'approve'),
            )
          : await call(() => provider.getPaymentIntent(row.paymentIntentId!));
      await settle(row, result);
      return chargeDto(row.id);
    },

    /** The spec's chargeStoredCard (admins): charges the seller's card by hand for an order, once per request. */
    async chargeStoredCard(admin: PaymentActor, input: ChargeStoredCardInput): Promise<ChargeDto> {
      if (!admin.isAdmin) throw forbidden('Only admins charge a seller’s card by hand');
      const current = await orders.find(input.orderId);
      if (!current || current.ownerId !== input.targetUserId) throw notFound('Order');
      const card = await cardOf(input.targetUserId);
      if (!card) throw new AppError('conflict', 'This seller has no card on file');
      const amountCents = Math.round(input.amount * 100);
      if (amountCents < MIN_CHARGE_CENTS)
        throw new AppError('unprocessable', 'A card charge must be at least $0.50');
      const key = `manual:${input.orderId}:${input.requestId ?? randomUUID()}`;
      const existing = await repository.findByIdempotencyKey(key);
      if (existing) return chargeDto(existing.id);
      const row = await repository.insertCharge({
        ownerId: input.targetUserId,
        orderId: input.orderId,
        kind: 'manual',
        attempt: 1,
        amountCents,
        currency: 'USD',
        breakdown: null,
        provider: provider.kind,
        customerId: card.customerId,
        paymentMethodId: card.paymentMethodId,
        idempotencyKey: key,
        status: 'pending',
        failureReason: null,
        createdBy: admin.id,
      });
      const charged = row ?? (await repository.findByIdempotencyKey(key))!;
      await audit.record({
        actorId: admin.id,
        targetUserId: input.targetUserId,
        action: 'payments.charge-stored-card',
        detail: { orderId: input.orderId, amountCents },
      });
      if (charged.status === 'pending') await call(() => ask(charged));
      return chargeDto(charged.id);
    },

    /** Admins: refunds what is left of a charge, or part of it. */
    async refund(admin: PaymentActor, chargeId: string, input: RefundChargeInput): Promise<ChargeDto> {
      if (!admin.isAdmin) throw forbidden('Only admins refund charges');
      const row = await repository.findCharge(chargeId);
      if (!row) throw notFound('Charge');
      const amount = input.amountCents ?? row.amountCents - row.refundedCents;
      await audit.record({
        actorId: admin.id,
        targetUserId: row.ownerId,
        action: 'payments.refund',
        detail: { chargeId, amountCents: amount },
      });
      await refundCharge(row, amount, input.reason || 'Refunded by the print farm', input.requestId);
      return chargeDto(row.id);
    },

    /**
     * A claim decided as a refund (docs/claims.md): the order's paid charge refunded by `amountCents`
     * (absent: all that is left), once per claim whatever the retries (`claimId` names the refund).
     * Returns the amount refunded; told on Billing, by email and webhook as every refund is.
     */
    async refundForClaim(admin: PaymentActor, orderId: string, claimId: string, amountCents: number | undefined, reason: string): Promise<number> {
      if (!admin.isAdmin) throw forbidden('Only admins refund charges');
      const { live } = await repository.orderCharges(orderId);
      if (!live?.paymentIntentId || !['succeeded', 'refunded'].includes(live.status))
        throw new AppError('conflict', 'This order has no paid charge to refund');
      const amount = amountCents ?? live.amountCents - live.refundedCents;
      if (amount <= 0) throw new AppError('conflict', 'This order’s charge is refunded in full already');
      await audit.record({ actorId: admin.id, targetUserId: live.ownerId, action: 'payments.refund', detail: { chargeId: live.id, amountCents: amount, claimId } });
      await refundCharge(live, amount, reason, `claim:${claimId}`);
      return amount;
    },

    /**
     * The orders' announcements, before the farm hears them: an order released to production is
     * charged (the farm makes jobs only for paid orders: `paidOrders`), a charged order cancelled
     * before it printed is refunded. Throws when some could not be asked (the batch is announced again).
     */
    async onOrderStatusChanges(events: readonly OrderStatusChangeEvent[]): Promise<void> {
      const work = events.filter(
        (event) =>
          (deps.chargeOrders && (event.to === 'accepted' || event.to === 'packed')) ||
          (event.to === 'cancelled' && event.from !== null && PRE_PRINT.includes(event.from)),
      );
      const failures: unknown[] = [];
      for (let i = 0; i < work.length; i += CHARGE_CONCURRENCY) {
        const settled = await Promise.allSettled(
          work.slice(i, i + CHARGE_CONCURRENCY).map(async (event) => {
            if (event.to === 'accepted') await chargeOrder(event.orderId);
            else if (event.to === 'packed') await adjustOrder(event.orderId);
            else await refundOnCancel(event.orderId);
          }),
        );
        for (const outcome of settled) if (outcome.status === 'rejected') failures.push(outcome.reason);
      }
      if (failures.length > 0)
        throw new AggregateError(
          failures,
          `${failures.length} of ${work.length} order payments could not be settled now`,
        );
    },

    /** Of these orders, those the farm may print: paid (or, when orders are not charged here, all). */
    async printableOrders(orderIds: readonly string[]): Promise<Set<string>> {
      if (!deps.chargeOrders) return new Set(orderIds);
      return repository.paidOrders(orderIds);
    },

    /** A provider webhook: verified, stored once, processed once (duplicates and replays change nothing). */
    async receiveWebhook(rawBody: Buffer, signature: string): Promise<{ duplicate: boolean }> {
      let event: PaymentWebhookEvent;
      try {
        event = provider.verifyWebhook(rawBody, signature);
      } catch (error) {
        // An unsigned or forged caller is not authenticated (Stripe retries any non-2xx answer).
        throw new AppError(
          'unauthenticated',
          error instanceof Error ? error.message : 'The webhook signature does not verify',
        );
      }
      if (settledEvents.has(event.id)) return { duplicate: true };
      const stored = await repository.storeEvent({
        id: event.id,
        provider: provider.kind,
        type: event.type,
        payload: event as unknown as Record<string, unknown>,
      });
      const { applied } = await processEvent(event.id);
      // Applied here, or claimed by another delivery (which settles it, or leaves it to the sweep).
      rememberSettled(event.id);
      return { duplicate: !stored && !applied };
    },

    /**
     * The sweep (job-working processes, a timer): charges and refunds whose answer a crash lost are asked
     * again with their key (the provider answers the first result: never a second charge); webhook
     * events stored but not processed are processed.
     */
    async recover(
      olderThanMs = PENDING_RECHECK_MS,
    ): Promise<{ charges: number; refunds: number; events: number }> {
      const before = new Date(Date.now() - olderThanMs);
      let charges = 0;
      for (const row of await repository.pendingCharges(before, 100)) {
        try {
          const asked = await ask(row);
          charges++;
          if (asked.status === 'succeeded') await afterPaid(asked);
        } catch (error) {
          deps.log?.error({ err: error, chargeId: row.id }, 'a pending charge could not be asked again');
        }
      }
      let refunds = 0;
      for (const refundRow of await repository.pendingRefunds(before, 100)) {
        const row = await repository.findCharge(refundRow.chargeId);
        if (!row?.paymentIntentId) continue;
        try {
          await askRefund(refundRow, row.paymentIntentId);
          refunds++;
        } catch (error) {
          deps.log?.error(
            { err: error, refundId: refundRow.id },
            'a pending refund could not be asked again',
          );
        }
      }
      let events = 0;
      for (const id of await repository.unprocessedEvents(before, 100)) {
        try {
          if ((await processEvent(id)).applied) events++;
        } catch (error) {
          deps.log?.error({ err: error, eventId: id }, 'a payment webhook could not be processed');
        }
      }
      return { charges, refunds, events };
    },
  };

  /** Money was taken (by the provider, or from the balance), so there is something to refund or adjust. */
  function paidThroughSomeone(row: ChargeRow): boolean {
    return row.paymentIntentId !== null || row.provider === WALLET;
  }

  /** Before it prints: a refund is due when a charged order is cancelled from these. */
  const PRE_PRINT: readonly OrderStatus[] = ['received', 'accepted', 'on_hold'];

  async function refundOnCancel(orderId: string): Promise<void> {
    const { live } = await repository.orderCharges(orderId);
    if (!live || live.status !== 'succeeded' || !paidThroughSomeone(live)) return;
    await refundCharge(
      live,
      live.amountCents - live.refundedCents,
      'The order was cancelled before it was printed',
    );
  }

  /**
   * An order printed (packed): its price is settled against the exact slices once (order-price.ts), and
   * a difference is charged or refunded as its own adjustment, under a key of its own (`order:<id>:
   * adjustment`), so announcing the order again moves no more money. Only a paid order is adjusted.
   */
  async function adjustOrder(orderId: string): Promise<void> {
    const { live } = await repository.orderCharges(orderId);
    if (!live || !paidThroughSomeone(live) || !['succeeded', 'refunded'].includes(live.status)) return;
    const price = await deps.prices.settleExact(orderId, { minIncreaseCents: MIN_CHARGE_CENTS });
    if (!price || price.adjustedItemsCents === null) return;
    const difference = price.adjustedItemsCents - price.itemsCents;
    const reason = price.adjustmentReason ?? 'Price adjustment';
    if (difference < 0) {
      await refundCharge(live, Math.min(-difference, live.amountCents - live.refundedCents), reason, 'adjustment');
      return;
    }
    if (difference === 0) return;
    const key = `order:${orderId}:adjustment`;
    const card = await cardOf(live.ownerId);
    const row =
      (await repository.insertCharge({
        ownerId: live.ownerId,
        orderId,
        kind: 'adjustment',
        attempt: 1,
        amountCents: difference,
        currency: live.currency,
        breakdown: { itemsCents: difference, packagingCents: 0, shippingCents: 0 },
        provider: provider.kind,
        customerId: card?.customerId ?? null,
        paymentMethodId: card?.paymentMethodId ?? null,
        idempotencyKey: key,
        status: card ? 'pending' : 'failed',
        // The adjustment's reason is its note on Billing (a decline replaces it with the bank's words).
        failureReason: card ? reason : `${reason}. No card on file.`,
        createdBy: null,
      })) ?? (await repository.findByIdempotencyKey(key));
    if (row?.status === 'pending') await ask(row);
    else if (row?.status === 'failed') await changed(row, null);
  }

  /**
   * A stored event applied once. The event says which PaymentIntent changed; its state is read back from
   * the provider (what the event claims is not taken as the state: an old event arriving late would undo
   * a newer one).
   */
  async function processEvent(id: string): Promise<{ applied: boolean }> {
    return repository.processEvent(id, async (payload, type) => {
      const object = (payload as unknown as PaymentWebhookEvent).data?.object ?? {};
      const paymentIntentId = type.startsWith('payment_intent.')
        ? String(object.id ?? '')
        : type.startsWith('charge.')
          ? String(object.payment_intent ?? '')
          : '';
      if (!paymentIntentId) return;
      const row = await repository.findByPaymentIntent(paymentIntentId);
      if (!row) return;
      if (type.startsWith('payment_intent.')) {
        if (
          !LIVE_CHARGE_STATES.includes(row.status as ChargeState) ||
          row.status === 'succeeded' ||
          row.status === 'refunded'
        )
          return;
        await settle(row, await provider.getPaymentIntent(paymentIntentId));
      } else if (REFUND_EVENTS.includes(type)) {
        await mirrorProviderRefunds(row);
      }
    });
  }

  return service satisfies PaymentEventListeners;
}

export type PaymentService = ReturnType<typeof createPaymentService>;
