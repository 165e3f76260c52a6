import { z } from 'zod';

/**
 * Claims (issue 24, point 1; docs/claims.md): a seller tells the farm that parts of an order arrived
 * damaged or misprinted, or that the parcel never came; an admin decides a reprint (free), a refund
 * or declines with a reason.
 */

export const CLAIM_KINDS = ['damaged', 'lost', 'misprinted'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/** open: waits for an admin; the others are the decision taken. */
export const CLAIM_STATUSES = ['open', 'reprint', 'refunded', 'declined'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

export const CLAIM_KIND_LABELS: Readonly<Record<ClaimKind, string>> = {
  damaged: 'Arrived damaged',
  lost: 'Parcel never arrived',
  misprinted: 'Misprinted',
};

export const CLAIM_STATUS_LABELS: Readonly<Record<ClaimStatus, string>> = {
  open: 'Waiting for review',
  reprint: 'Reprint on its way',
  refunded: 'Refunded',
  declined: 'Declined',
};

/** Days after delivery (or, for a parcel that never came, after its promised date) a claim may be filed. */
export const CLAIM_WINDOW_DAYS = 30;
/** Each photo's limit as uploaded, and how many a claim takes. */
export const CLAIM_PHOTO_MAX_BYTES = 8 * 1024 * 1024;
export const CLAIM_PHOTO_MAX_COUNT = 6;
/** Claims of these kinds must show the problem in at least one photo. */
export const CLAIM_KINDS_NEEDING_PHOTOS: readonly ClaimKind[] = ['damaged', 'misprinted'];

/** The text fields of a new claim (sent as multipart form fields beside the `photos` files). */
export const claimInputSchema = z
  .object({
    kind: z.enum(CLAIM_KINDS, { error: 'Choose damaged, lost or misprinted' }),
    description: z.string().trim().min(1, 'Say what is wrong').max(2000),
    /** The print jobs (parts) claimed: the order's printed parts, as the order page lists them. */
    partIds: z.array(z.uuid('Not a valid part id')).min(1, 'Choose at least one part').max(200),
  })
  .strict();
export type ClaimInput = z.infer<typeof claimInputSchema>;

export const claimDecisionInputSchema = z.discriminatedUnion(
  'decision',
  [
    z.object({ decision: z.literal('reprint'), note: z.string().trim().max(1000).default('') }).strict(),
    z
      .object({
        decision: z.literal('refund'),
        /** Absent: what is left of the order's charge. */
        amountCents: z.number().int().min(1).max(100_000_000).optional(),
        note: z.string().trim().max(1000).default(''),
      })
      .strict(),
    z.object({ decision: z.literal('decline'), note: z.string().trim().min(1, 'Give the seller a reason').max(1000) }).strict(),
  ],
  { error: 'decision: choose reprint, refund or decline' },
);
export type ClaimDecisionInput = z.infer<typeof claimDecisionInputSchema>;

/** One claimed part with its production record: who printed it where, from which spool, who passed it. */
export const claimPartSchema = z.object({
  printJobId: z.string(),
  partName: z.string(),
  material: z.string(),
  colour: z.string(),
  printerId: z.string().nullable(),
  printerName: z.string().nullable(),
  /** Who passed QC: a person's name or email, 'autopilot', or null. */
  qcBy: z.string().nullable(),
  printedAt: z.string().nullable(),
  /** The new print job when the claim was decided as a reprint. */
  reprintJobId: z.string().nullable(),
});
export type ClaimPart = z.infer<typeof claimPartSchema>;

export const claimPhotoSchema = z.object({
  id: z.string(),
  /** Served as image/jpeg to the claim's seller and admins. */
  url: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  sizeBytes: z.number().int(),
});
export type ClaimPhoto = z.infer<typeof claimPhotoSchema>;

export const claimSchema = z.object({
  id: z.string(),
  orderId: z.string(),
  orderNumber: z.string(),
  ownerId: z.string(),
  sellerName: z.string(),
  kind: z.enum(CLAIM_KINDS),
  description: z.string(),
  status: z.enum(CLAIM_STATUSES),
  parts: z.array(claimPartSchema),
  photos: z.array(claimPhotoSchema),
  /** The admin's words with the decision (the reason of a decline). */
  decisionNote: z.string(),
  refundCents: z.number().int().nullable(),
  /** The replacement parcel's label, once bought for a reprint. */
  replacementShipmentId: z.string().nullable(),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Claim = z.infer<typeof claimSchema>;

export const claimListQuerySchema = z
  .object({
    status: z.enum(CLAIM_STATUSES).optional(),
    orderId: z.uuid('Not a valid order id').optional(),
  })
  .strict();
export type ClaimListQuery = z.infer<typeof claimListQuerySchema>;

export const claimListSchema = z.object({ items: z.array(claimSchema) });
export type ClaimList = z.infer<typeof claimListSchema>;

/** Claims counted per printer and per material (the admin overview): a printer that spoils parts shows. */
export const claimStatsSchema = z.object({
  total: z.number().int(),
  open: z.number().int(),
  byPrinter: z.array(z.object({ printerId: z.string().nullable(), printerName: z.string(), claims: z.number().int() })),
  byMaterial: z.array(z.object({ material: z.string(), claims: z.number().int() })),
});
export type ClaimStats = z.infer<typeof claimStatsSchema>;

/** What the order page's claim form offers: the parts the seller received, and whether a claim can be filed now. */
export const claimOptionsSchema = z.object({
  parts: z.array(z.object({ printJobId: z.string(), partName: z.string(), material: z.string(), colour: z.string() })),
  /** Null when a claim can be filed now (of some kind); else why not, in words. */
  blockedReason: z.string().nullable(),
  /** The kinds a claim may be filed as now (a parcel still travelling can only be lost). */
  kinds: z.array(z.enum(CLAIM_KINDS)),
});
export type ClaimOptions = z.infer<typeof claimOptionsSchema>;
