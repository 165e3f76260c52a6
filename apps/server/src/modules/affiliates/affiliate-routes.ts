import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  adminAffiliatesPageSchema,
  adminAffiliatesQuerySchema,
  affiliateConnectSchema,
  affiliateEarningsPageSchema,
  affiliateEarningsQuerySchema,
  affiliateNoBodySchema,
  approvePayoutRunInputSchema,
  onboardingLinkSchema,
  payoutPeriodSchema,
  payoutRunQuerySchema,
  payoutRunSchema,
  proposePayoutRunInputSchema,
  sandboxOnboardingInputSchema,
  updateAffiliateCodeInputSchema,
  userAffiliatesSchema,
} from '@layerline/contracts';
import { requireAdmin, requireBetaTester, requireViewer, type Viewer } from '../../http/viewer.ts';
import type { AffiliateService, AffiliateViewer } from './affiliate-service.ts';

const asAffiliateViewer = (viewer: Viewer, request: FastifyRequest): AffiliateViewer => ({
  id: viewer.id,
  name: viewer.name,
  email: viewer.email,
  isAdmin: viewer.isAdmin,
  requestId: request.id,
});

const userIdParams = z.object({ userId: z.string().min(1).max(200) }).strict();
const affiliateIdParams = z.object({ affiliateId: z.string().min(1).max(200) }).strict();
const periodParams = z.object({ period: payoutPeriodSchema }).strict();

/** Where Stripe sends the browser back: this site as the browser reached it (PUBLIC_URL wins in the service). */
const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

/** Affiliates (docs/affiliates.md, docs/api.md): the spec's getUserAffiliates, getUserAffiliateEarnings, updateUserAffiliateCode, createStripeOnboardingLink; the admins' page. */
export function registerAffiliateRoutes(app: FastifyInstance, deps: { affiliates: AffiliateService }): void {
  const { affiliates } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['affiliates'];

  api.get(
    '/api/affiliates/me',
    {
      schema: {
        tags,
        summary:
          "getUserAffiliates: the caller's code, share link, sign-ups, orders, earnings and payouts account (beta)",
        response: { 200: userAffiliatesSchema },
      },
    },
    async (request) => affiliates.dashboard(asAffiliateViewer(requireBetaTester(request), request)),
  );

  api.get(
    '/api/affiliates/:affiliateId/earnings',
    {
      schema: {
        tags,
        summary:
          'getUserAffiliateEarnings(affiliateId): the ledger, newest first (your own; admins: anyone’s)',
        params: affiliateIdParams,
        querystring: affiliateEarningsQuerySchema,
        response: { 200: affiliateEarningsPageSchema },
      },
    },
    async (request) =>
      affiliates.earnings(
        asAffiliateViewer(requireViewer(request), request),
        request.params.affiliateId,
        request.query,
      ),
  );

  api.put(
    '/api/affiliates/me/code',
    {
      schema: {
        tags,
        summary:
          'updateUserAffiliateCode(affiliateCode): 3–32 letters, digits and dashes, unique without regard to case (beta)',
        body: updateAffiliateCodeInputSchema,
        response: { 200: userAffiliatesSchema },
      },
    },
    async (request) =>
      affiliates.updateCode(
        asAffiliateViewer(requireBetaTester(request), request),
        request.body.affiliateCode,
      ),
  );

  api.post(
    '/api/affiliates/connect/onboarding-link',
    {
      schema: {
        tags,
        summary:
          'createStripeOnboardingLink: the Stripe Connect Express onboarding link (the account is made once) (beta)',
        body: affiliateNoBodySchema,
        response: { 200: onboardingLinkSchema },
      },
    },
    async (request) =>
      affiliates.onboardingLink(asAffiliateViewer(requireBetaTester(request), request), originOf(request)),
  );

  api.get(
    '/api/affiliates/connect/status',
    {
      schema: {
        tags,
        summary: 'The payouts account as Stripe sees it now (the onboarding return page) (beta)',
        response: { 200: affiliateConnectSchema },
      },
    },
    async (request) => affiliates.connectStatus(asAffiliateViewer(requireBetaTester(request), request)),
  );

  api.post(
    '/api/affiliates/connect/sandbox',
    {
      schema: {
        tags,
        summary:
          'Test mode only: finish onboarding on the sandbox page (complete, or with a detail failing) (beta)',
        body: sandboxOnboardingInputSchema,
        response: { 200: affiliateConnectSchema },
      },
    },
    async (request) =>
      affiliates.completeSandboxOnboarding(
        asAffiliateViewer(requireBetaTester(request), request),
        request.body.outcome,
      ),
  );

  // ── admins ──

  api.get(
    '/api/admin/affiliates',
    {
      schema: {
        tags,
        summary: 'Every affiliate with sign-ups, orders and totals, newest first (admins)',
        querystring: adminAffiliatesQuerySchema,
        response: { 200: adminAffiliatesPageSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return affiliates.list(request.query);
    },
  );

  api.put(
    '/api/admin/affiliates/:userId/code',
    {
      schema: {
        tags,
        summary: "Change an affiliate's code (admins; audited)",
        params: userIdParams,
        body: updateAffiliateCodeInputSchema,
      },
    },
    async (request, reply) => {
      const admin = asAffiliateViewer(requireAdmin(request), request);
      await affiliates.adminUpdateCode(admin, request.params.userId, request.body.affiliateCode);
      return reply.status(204).send();
    },
  );

  for (const [action, held] of [
    ['hold', true],
    ['unhold', false],
  ] as const) {
    api.post(
      `/api/admin/affiliates/:userId/${action}`,
      {
        schema: {
          tags,
          summary: held
            ? "Hold an affiliate's payouts; earnings still accrue (admins; audited)"
            : "Release an affiliate's payouts (admins; audited)",
          params: userIdParams,
          body: affiliateNoBodySchema,
        },
      },
      async (request, reply) => {
        const admin = asAffiliateViewer(requireAdmin(request), request);
        await affiliates.setHeld(admin, request.params.userId, held);
        return reply.status(204).send();
      },
    );
  }

  api.get(
    '/api/admin/affiliates/payout-runs',
    {
      schema: {
        tags,
        summary: "A month's payouts as they stand (admins)",
        querystring: payoutRunQuerySchema,
        response: { 200: payoutRunSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return affiliates.payoutRun(request.query.period);
    },
  );

  api.get(
    '/api/admin/affiliates/payout-periods',
    {
      schema: {
        tags,
        summary: 'Months with payouts, newest first (admins)',
        response: { 200: z.object({ periods: z.array(z.string()) }) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return { periods: await affiliates.recentPeriods() };
    },
  );

  api.post(
    '/api/admin/affiliates/payout-runs',
    {
      schema: {
        tags,
        summary:
          "Propose a month's payouts: payable entries per affiliate; held and not-onboarded left out with the reason (admins; audited)",
        body: proposePayoutRunInputSchema,
        response: { 200: payoutRunSchema },
      },
    },
    async (request) =>
      affiliates.proposeRun(asAffiliateViewer(requireAdmin(request), request), request.body.period),
  );

  api.post(
    '/api/admin/affiliates/payout-runs/:period/approve',
    {
      schema: {
        tags,
        summary:
          "Approve a month's payouts: one Stripe transfer each (idempotency key payout:<id>); twice pays once (admins; audited)",
        params: periodParams,
        body: approvePayoutRunInputSchema,
        response: { 200: payoutRunSchema },
      },
    },
    async (request) =>
      affiliates.approveRun(
        asAffiliateViewer(requireAdmin(request), request),
        request.params.period,
        request.body.payoutIds,
      ),
  );
}
