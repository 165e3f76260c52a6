import type {
  AutoRechargeInput,
  BusinessDetails,
  ReceiptDto,
  ReceiptKind,
  ReceiptPage,
  TopUpDto,
  TopUpInput,
  WalletAdjustmentInput,
  WalletDto,
  WalletEntryDto,
  WalletEntryKind,
  WalletEntryPage,
} from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import { decodeCursor, pageFrom } from '../../platform/keyset-cursor.ts';
import { decodeTimeIdCursor, timeIdKey } from '../../platform/time-id-keyset.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { ChargeRow, NewCharge, RefundRow } from './payment-repository.ts';
import {
  PaymentAuthError,
  PaymentRejectedError,
  PaymentUnavailableError,
  type ChargeResult,
  type PaymentProvider,
} from './payment-provider.ts';
import { receiptLabel, renderReceipt, renderStatement, type Party } from './wallet-documents.ts';
import type { ReceiptParties, ReceiptRow, WalletEntryRow, WalletRepository, WalletTopUpRow } from './wallet-repository.ts';

/** A top-up asked of the provider whose answer was not stored this long after is asked again (same key). */
const PENDING_RECHECK_MS = 2 * 60 * 1000;
/** Entries in one CSV export: a farm's busiest seller makes a few thousand a month. */
const CSV_MAX_ROWS = 50_000;

export interface WalletActor {
  readonly id: string;
  readonly isAdmin: boolean;
}

export interface WalletServiceDeps {
  readonly repository: WalletRepository;
  readonly provider: PaymentProvider;
  /** The seller's card on file with this server's provider (payments' customer row), or null. */
  readonly cardOf: (ownerId: string) => Promise<{ customerId: string; paymentMethodId: string } | null>;
  readonly sellers: { detailsOf(id: string): Promise<{ name: string; businessName: string; email: string } | undefined> };
  readonly businessDetails: () => Promise<BusinessDetails>;
  /** Emails the seller that an automatic top-up failed (once per crossing). */
  readonly rechargeFailed: (event: { ownerId: string; topUpId: string; amountCents: number; reason: string }) => Promise<void>;
  readonly audit: AuditRepository;
  readonly log?: { error(obj: unknown, msg?: string): void };
}

/**
 * The wallet (issue 24; docs/wallet.md): a prepaid balance topped up by card (the top-up row and its
 * idempotency key written before the provider is asked), auto-recharge (one top-up per fall below the
 * threshold), orders paid from the balance when it covers them, refunds back into it, admins'
 * adjustments; a receipt for every charge, top-up, refund and adjustment, numbered without gaps; a
 * monthly statement and CSV exports.
 */
export function createWalletService(deps: WalletServiceDeps) {
  const { repository, provider, audit } = deps;

  async function parties(ownerId: string): Promise<ReceiptParties> {
    const [business, seller] = await Promise.all([deps.businessDetails(), deps.sellers.detailsOf(ownerId)]);
    const issuer: Record<string, string> = { name: business.legalName, address: business.address, email: business.email };
    if (business.taxId) issuer.taxId = business.taxId;
    if (business.website) issuer.website = business.website;
    const customer: Record<string, string> = {
      name: seller?.businessName || seller?.name || 'Seller',
      email: seller?.email ?? '',
    };
    if (seller?.businessName && seller.name) customer.contact = seller.name;
    return { issuer, customer };
  }

  const partyOf = (stored: Record<string, string>): Party => ({
    name: stored.name ?? '',
    lines: [
      ...(stored.contact ? [stored.contact] : []),
      ...(stored.address ? stored.address.split(/\r?\n/) : []),
      ...(stored.email ? [stored.email] : []),
      ...(stored.website ? [stored.website] : []),
      ...(stored.taxId ? [`Tax ID ${stored.taxId}`] : []),
    ],
  });

  /** A seller sees only their own; an admin anyone's (audited where it changes something). */
  function subjectOf(actor: WalletActor, targetUserId: string | undefined): string {
    if (!targetUserId || targetUserId === actor.id) return actor.id;
    if (!actor.isAdmin) throw forbidden('Only admins may act for another user');
    return targetUserId;
  }

  /** An admin acting for a seller who does not exist gets a 404, not a foreign-key error. */
  async function requireSeller(ownerId: string): Promise<void> {
    if (!(await deps.sellers.detailsOf(ownerId))) throw notFound('Seller');
  }

  const topUpDto = (row: WalletTopUpRow, receiptNumber: number | null): TopUpDto => ({
    id: row.id,
    amountCents: row.amountCents,
    currency: row.currency,
    automatic: row.automatic,
    status: row.status as TopUpDto['status'],
    failureReason: row.failureReason,
    receiptNumber,
    createdAt: row.createdAt.toISOString(),
  });

  const receiptDto = (row: ReceiptRow): ReceiptDto => ({
    number: row.number,
    kind: row.kind as ReceiptKind,
    amountCents: row.amountCents,
    currency: row.currency,
    paidWith: row.paidWith as ReceiptDto['paidWith'],
    description: row.description,
    orderNumber: row.orderNumber,
    issuedAt: row.issuedAt.toISOString(),
  });

  /**
   * Asks the provider for a pending top-up with its key and parameters (a repeat answers the first
   * result) and records the answer once. Throws when the provider did not answer: the row stays
   * pending and the sweep asks again.
   */
  async function ask(row: WalletTopUpRow): Promise<{ row: WalletTopUpRow; receiptNumber: number | null }> {
    if (!row.customerId || !row.paymentMethodId) {
      return { row: (await repository.failTopUp(row.id, 'No card on file.', null)) ?? row, receiptNumber: null };
    }
    let result: ChargeResult;
    try {
      result = await provider.chargeOffSession({
        customerId: row.customerId,
        paymentMethodId: row.paymentMethodId,
        amountCents: row.amountCents,
        currency: row.currency,
        idempotencyKey: row.idempotencyKey,
        metadata: { orderId: `wallet-top-up:${row.id}`, attempt: 1 },
        description: row.automatic ? 'Layerline balance auto-recharge' : 'Layerline balance top-up',
      });
    } catch (error) {
      if (error instanceof PaymentRejectedError)
        return { row: (await repository.failTopUp(row.id, error.message, null)) ?? row, receiptNumber: null };
      throw error;
    }
    if (result.status === 'succeeded') {
      const done = await repository.completeTopUp(row.id, result.paymentIntentId, await parties(row.ownerId));
      if (done) return { row: done.topUp, receiptNumber: done.receipt.number };
      return { row: (await repository.findTopUp(row.id)) ?? row, receiptNumber: null };
    }
    if (result.status === 'processing') return { row, receiptNumber: null };
    // Top-ups are off-session: a card that wants its holder to authenticate is a failed top-up (they pay on-session by card instead).
    const reason =
      result.status === 'requires_action'
        ? 'Your bank asks you to authenticate each payment, so the balance cannot be topped up off-session.'
        : (result.declineReason ?? 'The card was declined.');
    return { row: (await repository.failTopUp(row.id, reason, result.paymentIntentId)) ?? row, receiptNumber: null };
  }

  /** The provider's failures as the caller should see them (the payments module's mapping). */
  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof PaymentUnavailableError)
        throw new AppError('unavailable', 'The payment provider did not answer; try again in a minute');
      if (error instanceof PaymentAuthError) {
        deps.log?.error({ err: error }, 'the payment provider refused our API key');
        throw new AppError('unavailable', 'Payments are not available right now');
      }
      throw error;
    }
  }

  /**
   * One automatic top-up for this fall below the threshold (the claim on the wallet row makes it one,
   * however many orders see the fall at once). A failure emails the seller; orders then go to the card.
   */
  async function autoRecharge(ownerId: string): Promise<void> {
    const claimed = await repository.claimRechargeCrossing(ownerId);
    if (!claimed) return;
    const card = await deps.cardOf(ownerId);
    const { row } = await repository.insertTopUp({
      ownerId,
      amountCents: claimed.amountCents,
      automatic: true,
      provider: provider.kind,
      customerId: card?.customerId ?? null,
      paymentMethodId: card?.paymentMethodId ?? null,
      idempotencyKey: `wallet:${ownerId}:auto-recharge:${claimed.crossing}`,
    });
    const asked = row.status === 'pending' ? (await ask(row)).row : row;
    if (asked.status === 'failed')
      await deps.rechargeFailed({
        ownerId,
        topUpId: asked.id,
        amountCents: asked.amountCents,
        reason: asked.failureReason ?? 'The card was declined.',
      });
  }

  async function autoRechargeQuietly(ownerId: string): Promise<void> {
    try {
      await autoRecharge(ownerId);
    } catch (error) {
      // No answer from the provider: the top-up stays pending and the sweep asks again.
      deps.log?.error({ err: error, ownerId }, 'an auto-recharge could not be asked now');
    }
  }

  function csvCell(value: string | number | null): string {
    const text = value === null ? '' : String(value);
    // A cell a spreadsheet would run as a formula is quoted as text (CSV injection).
    const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
  }
  const csvOf = (rows: readonly (readonly (string | number | null)[])[]) =>
    rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
  const dollars = (cents: number) => (cents / 100).toFixed(2);

  function monthRange(month: string): { from: Date; to: Date } {
    const [year, monthNumber] = month.split('-').map(Number) as [number, number];
    return { from: new Date(Date.UTC(year, monthNumber - 1, 1)), to: new Date(Date.UTC(year, monthNumber, 1)) };
  }

  async function walletDto(ownerId: string): Promise<WalletDto> {
    const [row, card] = await Promise.all([repository.walletOf(ownerId), deps.cardOf(ownerId)]);
    return {
      ownerId,
      balanceCents: row?.balanceCents ?? 0,
      currency: row?.currency ?? 'USD',
      autoRecharge: row?.autoRecharge ?? false,
      rechargeThresholdCents: row?.rechargeThresholdCents ?? 0,
      rechargeAmountCents: row?.rechargeAmountCents ?? 0,
      hasCard: card !== null,
      testMode: provider.testMode,
    };
  }

  return {
    async wallet(actor: WalletActor, targetUserId: string | undefined): Promise<WalletDto> {
      return walletDto(subjectOf(actor, targetUserId));
    },

    /** A top-up by the seller's card, once per `requestId`; the balance is credited when the card pays. */
    async topUp(actor: WalletActor, input: TopUpInput): Promise<TopUpDto> {
      const card = await deps.cardOf(actor.id);
      if (!card) throw new AppError('conflict', 'Add a card in Account settings before topping up');
      const { row } = await repository.insertTopUp({
        ownerId: actor.id,
        amountCents: input.amountCents,
        automatic: false,
        provider: provider.kind,
        customerId: card.customerId,
        paymentMethodId: card.paymentMethodId,
        idempotencyKey: `wallet:${actor.id}:top-up:${input.requestId}`,
      });
      // The same request with another amount is another request, not a replay of this one.
      if (row.amountCents !== input.amountCents)
        throw new AppError('conflict', 'This request id was used for another amount');
      if (row.status !== 'pending') {
        const receipt = row.status === 'succeeded' ? await repository.receiptOfTopUp(row.id) : undefined;
        return topUpDto(row, receipt?.number ?? null);
      }
      const asked = await call(() => ask(row));
      return topUpDto(asked.row, asked.receiptNumber);
    },

    async setAutoRecharge(actor: WalletActor, input: AutoRechargeInput): Promise<WalletDto> {
      const ownerId = subjectOf(actor, input.targetUserId);
      if (ownerId !== actor.id) await requireSeller(ownerId);
      if (input.enabled && !(await deps.cardOf(ownerId)))
        throw new AppError('conflict', 'Add a card in Account settings before turning on auto-recharge');
      await repository.setAutoRecharge(ownerId, {
        enabled: input.enabled,
        thresholdCents: input.thresholdCents,
        amountCents: input.amountCents,
      });
      await audit.record({
        actorId: actor.id,
        targetUserId: ownerId,
        action: 'wallet.auto-recharge-set',
        detail: { enabled: input.enabled, thresholdCents: input.thresholdCents, amountCents: input.amountCents },
      });
      // Already below the new threshold: recharge now rather than at the next order.
      if (input.enabled) await autoRechargeQuietly(ownerId);
      return walletDto(ownerId);
    },

    /** Admins: a credit or a debit of a seller's balance with its reason (audited; once per requestId). */
    async adjust(actor: WalletActor, input: WalletAdjustmentInput): Promise<WalletEntryDto> {
      if (!actor.isAdmin) throw forbidden('Only admins adjust a balance');
      await requireSeller(input.targetUserId);
      const made = await repository.adjust({
        ownerId: input.targetUserId,
        amountCents: input.amountCents,
        reason: input.reason,
        idempotencyKey: `adjustment:${input.targetUserId}:${input.requestId}`,
        createdBy: actor.id,
        parties: await parties(input.targetUserId),
      });
      if (made === 'insufficient')
        throw new AppError('unprocessable', 'amountCents: the balance is smaller than this debit');
      if (made.created)
        await audit.record({
          actorId: actor.id,
          targetUserId: input.targetUserId,
          action: 'wallet.adjusted',
          detail: { amountCents: input.amountCents, reason: input.reason },
        });
      const [listed] = (await repository.listEntries(input.targetUserId, null, 50)).filter(
        (row) => row.entry.id === made.entry.id,
      );
      return entryDto(listed ?? { entry: made.entry, receiptNumber: null });
    },

    async entries(actor: WalletActor, query: { cursor?: string; limit: number; targetUserId?: string }): Promise<WalletEntryPage> {
      const ownerId = subjectOf(actor, query.targetUserId);
      const after = decodeTimeIdCursor(query.cursor, 'uuid');
      const rows = await repository.listEntries(ownerId, after, query.limit + 1);
      const page = pageFrom(rows, query.limit, (row) => timeIdKey(row.micros, row.entry.id), entryDto);
      return page;
    },

    async receipts(actor: WalletActor, query: { cursor?: string; limit: number; targetUserId?: string }): Promise<ReceiptPage> {
      const ownerId = subjectOf(actor, query.targetUserId);
      const key = decodeCursor(query.cursor, ['number']);
      const rows = await repository.listReceipts(ownerId, key ? (key[0] as number) : null, query.limit + 1);
      return pageFrom(rows, query.limit, (row) => [row.number], receiptDto);
    },

    /** A receipt's PDF: its owner's, or any for an admin (another seller's answers like a missing one). */
    async receiptPdf(actor: WalletActor, number: number): Promise<{ fileName: string; pdf: Uint8Array }> {
      const row = await repository.findReceipt(number);
      if (!row || (!actor.isAdmin && row.ownerId !== actor.id)) throw notFound('Receipt');
      const pdf = await renderReceipt({
        number: row.number,
        kind: row.kind as ReceiptKind,
        amountCents: row.amountCents,
        currency: row.currency,
        paidWith: row.paidWith as 'card' | 'wallet',
        description: row.description,
        orderNumber: row.orderNumber,
        issuedAt: row.issuedAt,
        issuer: partyOf(row.issuer),
        customer: partyOf(row.customer),
      });
      return { fileName: `receipt-${receiptLabel(row.number)}.pdf`, pdf };
    },

    /** The month's statement: the balance's opening, entries and closing, and what the card paid. */
    async statementPdf(actor: WalletActor, month: string, targetUserId: string | undefined): Promise<{ fileName: string; pdf: Uint8Array }> {
      const ownerId = subjectOf(actor, targetUserId);
      const { from, to } = monthRange(month);
      if (from.getTime() > Date.now()) throw new AppError('unprocessable', 'That month has not started yet');
      const [opening, entries, receipts, current] = await Promise.all([
        repository.balanceBefore(ownerId, from),
        repository.entriesBetween(ownerId, from, to),
        repository.receiptsBetween(ownerId, from, to),
        parties(ownerId),
      ]);
      const numberOf = new Map(receipts.map((row) => [row.source, row.number]));
      const lines = entries.map((entry) => ({
        date: entry.createdAt,
        description: entry.description,
        receiptNumber:
          numberOf.get(
            entry.kind === 'charge' ? `charge:${entry.chargeId}` : entry.kind === 'refund' ? entry.idempotencyKey : `wallet-entry:${entry.id}`,
          ) ?? null,
        amountCents: entry.amountCents,
        balanceAfterCents: entry.balanceAfterCents,
      }));
      const pdf = await renderStatement({
        month,
        issuer: partyOf(current.issuer),
        customer: partyOf(current.customer),
        openingCents: opening,
        closingCents: opening + entries.reduce((sum, entry) => sum + entry.amountCents, 0),
        lines,
        cardLines: receipts
          .filter((row) => row.paidWith === 'card' && row.kind !== 'top_up')
          .map((row) => ({ date: row.issuedAt, description: row.description, receiptNumber: row.number, amountCents: row.amountCents })),
        generatedAt: new Date(),
      });
      return { fileName: `statement-${month}.pdf`, pdf };
    },

    /** The ledger as CSV (oldest first): what Billing's export gives. */
    async ledgerCsv(actor: WalletActor, targetUserId: string | undefined): Promise<string> {
      const ownerId = subjectOf(actor, targetUserId);
      const rows = await repository.entriesBetween(ownerId, new Date(0), new Date(Date.now() + 60_000));
      const receipts = new Map(
        (await repository.receiptsBetween(ownerId, new Date(0), new Date(Date.now() + 60_000))).map((row) => [row.source, row.number]),
      );
      return csvOf([
        ['date', 'kind', 'description', 'amount', 'balance_after', 'currency', 'receipt', 'order_id'],
        ...rows.slice(-CSV_MAX_ROWS).map((entry) => {
          const receipt = receipts.get(
            entry.kind === 'charge' ? `charge:${entry.chargeId}` : entry.kind === 'refund' ? entry.idempotencyKey : `wallet-entry:${entry.id}`,
          );
          return [
            entry.createdAt.toISOString(),
            entry.kind,
            entry.description,
            dollars(entry.amountCents),
            dollars(entry.balanceAfterCents),
            'USD',
            receipt ? receiptLabel(receipt) : '',
            entry.orderId,
          ];
        }),
      ]);
    },

    /** Every receipt as CSV (card and balance: charges, top-ups, refunds, adjustments), oldest first. */
    async receiptsCsv(actor: WalletActor, targetUserId: string | undefined): Promise<string> {
      const ownerId = subjectOf(actor, targetUserId);
      const rows = await repository.receiptsBetween(ownerId, new Date(0), new Date(Date.now() + 60_000));
      return csvOf([
        ['receipt', 'issued', 'kind', 'description', 'order', 'paid_with', 'amount', 'currency'],
        ...rows.slice(-CSV_MAX_ROWS).map((row) => [
          receiptLabel(row.number),
          row.issuedAt.toISOString(),
          row.kind,
          row.description,
          row.orderNumber,
          row.paidWith,
          dollars(row.amountCents),
          row.currency,
        ]),
      ]);
    },

    /* ---------- what payments asks of the wallet ---------- */

    /**
     * An order's charge paid from the balance when it covers it (after an auto-recharge, if this order
     * is what took the balance below the threshold). Null: the card pays. 'taken': another process is
     * paying this order.
     */
    async payOrder(values: NewCharge, orderNumber: string | null): Promise<ChargeRow | 'taken' | null> {
      const current = await repository.walletOf(values.ownerId);
      if (!current) return null;
      if (current.balanceCents < values.amountCents && current.autoRecharge) await autoRechargeQuietly(values.ownerId);
      const paid = await repository.payOrder(
        { ...values, provider: 'wallet', customerId: null, paymentMethodId: null, status: 'succeeded', failureReason: null },
        orderNumber,
        await parties(values.ownerId),
      );
      if (paid === 'insufficient') return null;
      if (paid !== 'taken') await autoRechargeQuietly(values.ownerId);
      return paid;
    },

    /** A refund of a charge paid from the balance, back into it, once per key. */
    async refundToWallet(
      row: ChargeRow,
      amountCents: number,
      reason: string,
      idempotencyKey: string,
      orderNumber: string | null,
    ): Promise<{ refund: RefundRow; charge: ChargeRow } | undefined> {
      return repository.refundToWallet({
        chargeId: row.id,
        amountCents,
        reason,
        idempotencyKey,
        orderNumber,
        parties: await parties(row.ownerId),
      });
    },

    /** Payments' events: a card charge that succeeded and a refund that did each get their receipt (once). */
    async receiptForCharge(chargeId: string, ownerId: string): Promise<void> {
      await repository.receiptForCharge(chargeId, await parties(ownerId));
    },
    async receiptForRefund(refundId: string, ownerId: string): Promise<void> {
      await repository.receiptForRefund(refundId, await parties(ownerId));
    },

    /**
     * The sweep: top-ups whose answer a crash (or a timeout) lost are asked again with their key; paid
     * charges and refunds whose receipt a failed listener missed get it.
     */
    async recover(olderThanMs = PENDING_RECHECK_MS): Promise<number> {
      let settled = 0;
      const before = new Date(Date.now() - olderThanMs);
      const missing = await repository.missingReceipts(before, 100);
      for (const row of missing.charges) await repository.receiptForCharge(row.id, await parties(row.ownerId));
      for (const row of missing.refunds) await repository.receiptForRefund(row.id, await parties(row.ownerId));
      for (const row of await repository.pendingTopUps(before, 100)) {
        try {
          const asked = await ask(row);
          if (asked.row.status !== 'pending') settled++;
          if (asked.row.status === 'failed' && asked.row.automatic)
            await deps.rechargeFailed({
              ownerId: row.ownerId,
              topUpId: row.id,
              amountCents: row.amountCents,
              reason: asked.row.failureReason ?? 'The card was declined.',
            });
        } catch (error) {
          deps.log?.error({ err: error, topUpId: row.id }, 'a pending top-up could not be asked again');
        }
      }
      return settled;
    },
  };

  function entryDto(row: { entry: WalletEntryRow; receiptNumber: number | null }): WalletEntryDto {
    return {
      id: row.entry.id,
      kind: row.entry.kind as WalletEntryKind,
      amountCents: row.entry.amountCents,
      balanceAfterCents: row.entry.balanceAfterCents,
      description: row.entry.description,
      orderId: row.entry.orderId,
      receiptNumber: row.receiptNumber,
      createdAt: row.entry.createdAt.toISOString(),
    };
  }
}

export type WalletService = ReturnType<typeof createWalletService>;
