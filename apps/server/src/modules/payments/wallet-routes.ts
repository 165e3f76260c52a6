import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  autoRechargeInputSchema,
  receiptListQuerySchema,
  receiptPageSchema,
  statementMonthSchema,
  topUpInputSchema,
  topUpSchema,
  walletAdjustmentInputSchema,
  walletEntryListQuerySchema,
  walletEntryPageSchema,
  walletEntrySchema,
  walletQuerySchema,
  walletSchema,
} from '@layerline/contracts';
import { requireAdmin, requireViewer } from '../../http/viewer.ts';
import type { WalletActor, WalletService } from './wallet-service.ts';

const receiptParams = z.object({ number: z.coerce.number().int('Not a receipt number').min(1).max(2_147_483_647) }).strict();
const statementParams = z.object({ month: statementMonthSchema }).strict();

function actorOf(request: FastifyRequest): WalletActor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin };
}

function sendFile(reply: FastifyReply, type: string, disposition: 'inline' | 'attachment', fileName: string, body: Buffer | string) {
  return reply
    .type(type)
    .header('content-disposition', `${disposition}; filename="${fileName}"`)
    .header('cache-control', 'no-store')
    .send(body);
}

/** The wallet, its ledger, receipts and statements (docs/wallet.md). */
export function registerWalletRoutes(app: FastifyInstance, deps: { wallet: WalletService }): void {
  const { wallet } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['wallet'];

  api.get(
    '/api/wallet',
    { schema: { tags, summary: 'The prepaid balance and auto-recharge settings (a seller’s own; admins: `targetUserId`)', querystring: walletQuerySchema, response: { 200: walletSchema } } },
    async (request) => wallet.wallet(actorOf(request), request.query.targetUserId),
  );

  api.post(
    '/api/wallet/top-ups',
    { schema: { tags, summary: 'Tops up the balance by the seller’s card on file, once per requestId (the balance is credited when the card pays)', body: topUpInputSchema, response: { 200: topUpSchema } } },
    async (request) => wallet.topUp(actorOf(request), request.body),
  );

  api.put(
    '/api/wallet/auto-recharge',
    { schema: { tags, summary: 'Auto-recharge: top up by `amountCents` when the balance falls below `thresholdCents` (one top-up per fall)', body: autoRechargeInputSchema, response: { 200: walletSchema } } },
    async (request) => wallet.setAutoRecharge(actorOf(request), request.body),
  );

  api.post(
    '/api/wallet/adjustments',
    { schema: { tags, summary: 'Admins: credits (positive) or debits (negative) a seller’s balance with a reason, once per requestId (audited)', body: walletAdjustmentInputSchema, response: { 200: walletEntrySchema } } },
    async (request) => wallet.adjust({ id: requireAdmin(request).id, isAdmin: true }, request.body),
  );

  api.get(
    '/api/wallet/entries',
    { schema: { tags, summary: 'The balance’s ledger, newest first, each entry with its receipt number', querystring: walletEntryListQuerySchema, response: { 200: walletEntryPageSchema } } },
    async (request) => wallet.entries(actorOf(request), request.query),
  );

  api.get(
    '/api/wallet/entries.csv',
    { schema: { tags, summary: 'The whole ledger as CSV, oldest first', querystring: walletQuerySchema } },
    async (request, reply) =>
      sendFile(reply, 'text/csv; charset=utf-8', 'attachment', 'wallet-ledger.csv', await wallet.ledgerCsv(actorOf(request), request.query.targetUserId)),
  );

  api.get(
    '/api/wallet/receipts',
    { schema: { tags, summary: 'Receipts (charges by card or balance, top-ups, refunds, adjustments), newest first', querystring: receiptListQuerySchema, response: { 200: receiptPageSchema } } },
    async (request) => wallet.receipts(actorOf(request), request.query),
  );

  api.get(
    '/api/wallet/receipts.csv',
    { schema: { tags, summary: 'Every receipt as CSV, oldest first', querystring: walletQuerySchema } },
    async (request, reply) =>
      sendFile(reply, 'text/csv; charset=utf-8', 'attachment', 'receipts.csv', await wallet.receiptsCsv(actorOf(request), request.query.targetUserId)),
  );

  api.get(
    '/api/wallet/receipts/:number/pdf',
    { schema: { tags, summary: 'A receipt as a PDF, with the platform’s business details and the seller’s', params: receiptParams } },
    async (request, reply) => {
      const { fileName, pdf } = await wallet.receiptPdf(actorOf(request), request.params.number);
      return sendFile(reply, 'application/pdf', 'inline', fileName, Buffer.from(pdf));
    },
  );

  api.get(
    '/api/wallet/statements/:month/pdf',
    { schema: { tags, summary: 'A month’s statement as a PDF (YYYY-MM): the balance’s opening, entries and closing, and what the card paid', params: statementParams, querystring: walletQuerySchema } },
    async (request, reply) => {
      const { fileName, pdf } = await wallet.statementPdf(actorOf(request), request.params.month, request.query.targetUserId);
      return sendFile(reply, 'application/pdf', 'inline', fileName, Buffer.from(pdf));
    },
  );
}
