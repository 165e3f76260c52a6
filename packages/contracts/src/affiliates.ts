import { z } from 'zod';
import { pageQueryFields, pageSchema } from './paging.ts';

/**
 * Affiliates (issue 13; docs/affiliates.md): a beta seller's referral code and share link, the
 * sellers it brought, the ledger of what they earned, their Stripe Connect payouts account, and the
 * admins' view with the monthly payout run.
 */

export const AFFILIATE_CODE_MIN = 3;
export const AFFILIATE_CODE_MAX = 32;

/**
 * Codes that would pass for Layerline itself or a part of the site in a share link; compared
 * without regard to case.
 */
export const RESERVED_AFFILIATE_CODES: readonly string[] = [
  'admin',
  'administrator',
  'affiliate',
  'affiliates',
  'api',
  'billing',
  'help',
  'layerline',
  'login',
  'null',
  'official',
  'ref',
  'register',
  'root',
  'staff',
  'stripe',
  'support',
  'system',
  'team',
  'test',
  'undefined',
  'www',
];

/** Letters and digits, single dashes between them (no leading, trailing or double dash). */
const CODE_PATTERN = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;

/** What is wrong with a code, in words for the seller; null when it is a valid code. */
export function affiliateCodeProblem(code: string): string | null {
  if (code.length < AFFILIATE_CODE_MIN || code.length > AFFILIATE_CODE_MAX)
    return `A code is ${AFFILIATE_CODE_MIN} to ${AFFILIATE_CODE_MAX} characters long`;
  if (!CODE_PATTERN.test(code))
    return 'A code uses only letters, digits and single dashes between them (no spaces or other signs)';
  if (RESERVED_AFFILIATE_CODES.includes(code.toLowerCase()))
    return `"${code}" is reserved; choose another code`;
  return null;
}

export const affiliateCodeSchema = z
  .string()
  .trim()
  .superRefine((code, ctx) => {
    const problem = affiliateCodeProblem(code);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The spec's updateUserAffiliateCode (affiliateCode); admins send the same body for a seller. */
export const updateAffiliateCodeInputSchema = z.object({ affiliateCode: affiliateCodeSchema }).strict();
export type UpdateAffiliateCodeInput = z.infer<typeof updateAffiliateCodeInputSchema>;

/**
 * The Connect account's state, as we act on it: none (never started), pending (onboarding not
 * finished), active (Stripe pays out to it), restricted (details sent, but Stripe needs more before paying).
 */
export const CONNECT_STATUSES = ['none', 'pending', 'active', 'restricted'] as const;
export type ConnectStatus = (typeof CONNECT_STATUSES)[number];

/** A ledger entry's state: pending (order not delivered + held), payable, paid (transferred). */
export const EARNING_STATES = ['pending', 'payable', 'paid'] as const;
export type EarningState = (typeof EARNING_STATES)[number];

export const affiliateTotalsSchema = z.object({
  pendingCents: z.number().int(),
  payableCents: z.number().int(),
  paidCents: z.number().int(),
  currency: z.string(),
});
export type AffiliateTotals = z.infer<typeof affiliateTotalsSchema>;

export const affiliateConnectSchema = z.object({
  status: z.enum(CONNECT_STATUSES),
  /** Stripe's `requirements.currently_due` at the last look (what onboarding still asks for). */
  requirementsDue: z.array(z.string()),
  /** An admin stopped payouts; earnings still accrue. */
  payoutsHeld: z.boolean(),
  /** The sandbox provider (no money moves) or Stripe test keys. */
  testMode: z.boolean(),
});
export type AffiliateConnect = z.infer<typeof affiliateConnectSchema>;

export const referredSellerSchema = z.object({
  /** As the seller signed up (their business name when they gave one). */
  name: z.string(),
  joinedAt: z.string(),
  /** When their orders stop earning for the affiliate. */
  endsAt: z.string(),
  ordersCount: z.number().int(),
  earnedCents: z.number().int(),
});
export type ReferredSeller = z.infer<typeof referredSellerSchema>;

/** The spec's getUserAffiliates: the caller's own affiliate dashboard. */
export const userAffiliatesSchema = z.object({
  affiliateId: z.string(),
  code: z.string(),
  /** `<site>/?ref=CODE`: any page of the site captures it. */
  shareLink: z.string(),
  sharePercent: z.number(),
  periodMonths: z.number().int(),
  holdDays: z.number().int(),
  signUpsCount: z.number().int(),
  /** The most recent sign-ups (up to 100). */
  signUps: z.array(referredSellerSchema),
  ordersCount: z.number().int(),
  totals: affiliateTotalsSchema,
  connect: affiliateConnectSchema,
});
export type UserAffiliates = z.infer<typeof userAffiliatesSchema>;

export const affiliateEarningSchema = z.object({
  id: z.string(),
  kind: z.enum(['earning', 'reversal']),
  /** Signed: a reversal is negative. */
  amountCents: z.number().int(),
  currency: z.string(),
  state: z.enum(EARNING_STATES),
  orderId: z.string().nullable(),
  orderNumber: z.string().nullable(),
  referredSeller: z.string(),
  createdAt: z.string(),
  /** null until the order is delivered. */
  payableAt: z.string().nullable(),
  paidAt: z.string().nullable(),
});
export type AffiliateEarning = z.infer<typeof affiliateEarningSchema>;

export const affiliateEarningsQuerySchema = z.object({ ...pageQueryFields(25, 100) }).strict();
export const affiliateEarningsPageSchema = pageSchema(affiliateEarningSchema);
export type AffiliateEarningsPage = z.infer<typeof affiliateEarningsPageSchema>;

/** The spec's createStripeOnboardingLink: where the browser goes to onboard (Stripe, or the sandbox page). */
export const onboardingLinkSchema = z.object({ url: z.string() });
export type OnboardingLink = z.infer<typeof onboardingLinkSchema>;

/** The sandbox's own onboarding page: what the tester does there (test mode only). */
export const sandboxOnboardingInputSchema = z
  .object({
    /** complete: every detail given, payouts on; restricted: sent, but a detail fails verification. */
    outcome: z.enum(['complete', 'restricted']),
  })
  .strict();
export type SandboxOnboardingInput = z.infer<typeof sandboxOnboardingInputSchema>;

// ── admins ────────────────────────────────────────────────────────────────────────────────────

export const adminAffiliateSchema = z.object({
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  code: z.string(),
  connectStatus: z.enum(CONNECT_STATUSES),
  payoutsHeld: z.boolean(),
  signUpsCount: z.number().int(),
  ordersCount: z.number().int(),
  totals: affiliateTotalsSchema,
  createdAt: z.string(),
});
export type AdminAffiliate = z.infer<typeof adminAffiliateSchema>;

export const adminAffiliatesQuerySchema = z.object({ ...pageQueryFields(50, 100) }).strict();
export const adminAffiliatesPageSchema = pageSchema(adminAffiliateSchema);
export type AdminAffiliatesPage = z.infer<typeof adminAffiliatesPageSchema>;

/** A bodiless POST (hold, unhold, an onboarding link): nothing, or an empty object. */
export const affiliateNoBodySchema = z.object({}).strict().nullish();

export const PAYOUT_STATUSES = ['proposed', 'approved', 'paid', 'failed', 'held'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** YYYY-MM, the month a payout run covers. */
export const payoutPeriodSchema = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'A period is a month: YYYY-MM');

export const affiliatePayoutSchema = z.object({
  id: z.string(),
  affiliateId: z.string(),
  code: z.string(),
  name: z.string(),
  period: z.string(),
  amountCents: z.number().int(),
  currency: z.string(),
  status: z.enum(PAYOUT_STATUSES),
  entriesCount: z.number().int(),
  transferId: z.string().nullable(),
  error: z.string().nullable(),
  approvedBy: z.string().nullable(),
  createdAt: z.string(),
  paidAt: z.string().nullable(),
});
export type AffiliatePayout = z.infer<typeof affiliatePayoutSchema>;

export const payoutSkipSchema = z.object({
  affiliateId: z.string(),
  code: z.string(),
  amountCents: z.number().int(),
  reason: z.string(),
});
export type PayoutSkip = z.infer<typeof payoutSkipSchema>;

export const proposePayoutRunInputSchema = z.object({ period: payoutPeriodSchema }).strict();
export const approvePayoutRunInputSchema = z
  .object({
    /** Only these payouts of the period (default: every proposed one, and failed ones again). */
    payoutIds: z.array(z.uuid()).max(500).optional(),
  })
  .strict();
export type ApprovePayoutRunInput = z.infer<typeof approvePayoutRunInputSchema>;

export const payoutRunSchema = z.object({
  period: z.string(),
  payouts: z.array(affiliatePayoutSchema),
  /** Affiliates with a balance that the run leaves out, and why (held, not onboarded, nothing to pay). */
  skipped: z.array(payoutSkipSchema),
});
export type PayoutRun = z.infer<typeof payoutRunSchema>;

export const payoutRunQuerySchema = z.object({ period: payoutPeriodSchema }).strict();
