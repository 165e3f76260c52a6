import { Readable } from 'node:stream';
import sharp from 'sharp';
import {
  CLAIM_KIND_LABELS,
  CLAIM_KINDS,
  CLAIM_KINDS_NEEDING_PHOTOS,
  CLAIM_PHOTO_MAX_COUNT,
  CLAIM_STATUS_LABELS,
  CLAIM_WINDOW_DAYS,
  formatCents,
  type Claim,
  type ClaimDecisionInput,
  type ClaimInput,
  type ClaimKind,
  type ClaimList,
  type ClaimListQuery,
  type ClaimOptions,
  type ClaimStats,
  type ClaimStatus,
  type Shipment,
} from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { FileStorage } from '../designs/file-storage.ts';
import type { EventActor } from '../orders/order-repository.ts';
import type { ClaimListRow, ClaimsRepository, OrderJobRow } from './claims-repository.ts';

export interface ClaimActor {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

/** A photo as uploaded, before it is checked. */
export interface UploadedPhoto {
  readonly fileName: string;
  readonly bytes: Buffer;
}

/** A claim as its webhooks describe it. */
export interface WebhookClaim {
  id: string;
  kind: ClaimKind;
  status: ClaimStatus;
  description: string;
  partIds: string[];
  decisionNote: string;
  refundCents: number | null;
}

/** What the claims module needs from the others, passed in as functions (app-context.ts). */
export interface ClaimsDeps {
  repository: ClaimsRepository;
  storage: FileStorage;
  audit: AuditRepository;
  /** The orders module: a step on the order's timeline. */
  timeline: (orderId: string, actor: EventActor, reason: string) => Promise<void>;
  /** The production module: the parts printed again (claimed job id → its reprint's id). */
  reprint: (orderId: string, jobIds: readonly string[], adminId: string, reason: string) => Promise<Map<string, string>>;
  /** The shipping module: the replacement parcel's label, at no cost to the seller. */
  replacementLabels: (actor: ClaimActor, orderId: string, parts: readonly { sizeMm: { x: number; y: number; z: number }; grams: number }[]) => Promise<Shipment[]>;
  /** The payments module: the order's charge refunded once for this claim; the amount refunded. */
  refund: (actor: ClaimActor, orderId: string, claimId: string, amountCents: number | undefined, reason: string) => Promise<number>;
  /** The seller's email (notifications). */
  email: (userId: string, dedupeKey: string, vars: { orderNumber: string; kind: string; status: string; detail: string; claimsUrl: string }) => Promise<void>;
  /** The seller's webhook endpoint (order API). */
  announce: (ownerId: string, orderId: string, step: 'filed' | 'decided', claim: WebhookClaim) => Promise<void>;
  /** The site's address, for the links in emails. */
  siteUrl: string;
  now?: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A photo's pixels, at most (a decompression bomb is refused before it is decoded). */
const MAX_INPUT_PIXELS = 50_000_000;
/** Photos are kept at most this wide or high: enough to see a crack, small enough to store. */
const STORED_EDGE_PX = 2400;
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp']);

/**
 * A photo checked by its content (never its name): decoded by sharp within a pixel limit, turned
 * upright, shrunk to STORED_EDGE_PX and written as a JPEG without its metadata (EXIF GPS included).
 */
async function normalisePhoto(photo: UploadedPhoto): Promise<{ jpeg: Buffer; width: number; height: number }> {
  const notAnImage = () => new AppError('unsupported-media-type', `${photo.fileName || 'A photo'} is not a JPEG, PNG or WebP image`);
  let format: string | undefined;
  try {
    format = (await sharp(photo.bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()).format;
  } catch {
    throw notAnImage();
  }
  if (!format || !ACCEPTED_FORMATS.has(format)) throw notAnImage();
  try {
    const { data, info } = await sharp(photo.bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize({ width: STORED_EDGE_PX, height: STORED_EDGE_PX, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 85 })
      .toBuffer({ resolveWithObject: true });
    return { jpeg: data, width: info.width, height: info.height };
  } catch {
    throw new AppError('unprocessable', `${photo.fileName || 'A photo'} could not be read as an image (damaged, or too many pixels)`);
  }
}

/** The newest attempt of every copy of every part: the parts a seller received. */
function receivedParts(jobs: readonly OrderJobRow[]): OrderJobRow[] {
  const latest = new Map<string, OrderJobRow>();
  for (const job of jobs) {
    const key = `${job.orderItemId}:${job.partIndex}:${job.copy}`;
    const seen = latest.get(key);
    if (!seen || job.attempt > seen.attempt) latest.set(key, job);
  }
  return [...latest.values()].filter((job) => job.status === 'qc_passed');
}

/** Claims on orders (issue 24; docs/claims.md): filed by sellers, decided by admins. */
export function createClaimsService(deps: ClaimsDeps) {
  const { repository, storage, audit } = deps;
  const now = deps.now ?? (() => new Date());
  const photoUrl = (claimId: string, photoId: string) => `/api/claims/${claimId}/photos/${photoId}`;
  const claimsUrl = `${deps.siteUrl}/claims`;

  async function dtos(rows: readonly ClaimListRow[]): Promise<Claim[]> {
    const ids = rows.map((row) => row.id);
    const [parts, photos] = await Promise.all([repository.partsOf(ids), repository.photosOf(ids)]);
    return rows.map((row) => ({
      id: row.id,
      orderId: row.orderId,
      orderNumber: row.orderNumber,
      ownerId: row.ownerId,
      sellerName: row.sellerName,
      kind: row.kind as ClaimKind,
      description: row.description,
      status: row.status as ClaimStatus,
      parts: parts
        .filter((part) => part.claimId === row.id)
        .map((part) => ({
          printJobId: part.printJobId,
          partName: part.partName,
          material: part.material,
          colour: part.colour,
          printerId: part.printerId,
          printerName: part.printerName || null,
          qcBy: part.qcBy,
          printedAt: part.printedAt?.toISOString() ?? null,
          reprintJobId: part.reprintJobId,
        })),
      photos: photos
        .filter((photo) => photo.claimId === row.id)
        .map((photo) => ({ id: photo.id, url: photoUrl(row.id, photo.id), width: photo.width, height: photo.height, sizeBytes: photo.sizeBytes })),
      decisionNote: row.decisionNote,
      refundCents: row.refundCents,
      replacementShipmentId: row.replacementShipmentId,
      decidedAt: row.decidedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
    }));
  }

  async function dto(id: string): Promise<Claim> {
    const row = await repository.find(id);
    if (!row) throw notFound('Claim');
    return (await dtos([row]))[0]!;
  }

  /** The claim, if the actor may see it; another seller's claim answers like a missing one. */
  async function visible(actor: ClaimActor, id: string): Promise<ClaimListRow> {
    const row = await repository.find(id);
    if (!row || (!actor.isAdmin && row.ownerId !== actor.id)) throw notFound('Claim');
    return row;
  }

  const webhookClaim = (claim: Claim): WebhookClaim => ({
    id: claim.id,
    kind: claim.kind,
    status: claim.status,
    description: claim.description,
    partIds: claim.parts.map((part) => part.printJobId),
    decisionNote: claim.decisionNote,
    refundCents: claim.refundCents,
  });

  /** The timeline, the email and the webhook of one step; each is idempotent on the claim and step. */
  async function tell(claim: Claim, step: 'filed' | 'decided', actor: EventActor, timelineText: string, detail: string): Promise<void> {
    await deps.timeline(claim.orderId, actor, timelineText);
    await deps.email(claim.ownerId, `claim_${step}:${claim.id}`, {
      orderNumber: claim.orderNumber,
      kind: CLAIM_KIND_LABELS[claim.kind],
      status: CLAIM_STATUS_LABELS[claim.status],
      detail,
      claimsUrl,
    });
    await deps.announce(claim.ownerId, claim.orderId, step, webhookClaim(claim));
  }

  /** Why this order cannot be claimed now, or null: delivered within the window, or (lost) past its promise within it. */
  function windowProblem(order: { status: string; deliveredAt: Date | null; shippedAt: Date | null; promisedAt: Date | null }, kind: ClaimKind): string | null {
    const at = now().getTime();
    if (order.status === 'delivered') {
      const since = order.deliveredAt ?? order.shippedAt;
      if (since && at - since.getTime() > CLAIM_WINDOW_DAYS * DAY_MS) return `Claims are taken within ${CLAIM_WINDOW_DAYS} days of delivery`;
      return null;
    }
    if (order.status === 'shipped') {
      if (kind !== 'lost') return 'Parts can be claimed as damaged or misprinted once the order is delivered';
      const promised = order.promisedAt ?? order.shippedAt;
      if (promised && at < promised.getTime()) return `The parcel is not late yet: it is due by ${promised.toISOString().slice(0, 10)}`;
      if (promised && at - promised.getTime() > CLAIM_WINDOW_DAYS * DAY_MS) return `Claims for a lost parcel are taken within ${CLAIM_WINDOW_DAYS} days of its promised date`;
      return null;
    }
    return 'Only shipped or delivered orders can be claimed';
  }

  return {
    /** Refuses (404, as for a missing order) anyone but the order's seller and admins. */
    async assertClaimant(actor: ClaimActor, orderId: string): Promise<void> {
      const order = await repository.claimableOrder(orderId);
      if (!order || (!actor.isAdmin && order.ownerId !== actor.id)) throw notFound('Order');
    },

    /** What the claim form offers for an order: its received parts, the kinds open now, or why none is. */
    async options(actor: ClaimActor, orderId: string): Promise<ClaimOptions> {
      const order = await repository.claimableOrder(orderId);
      if (!order || (!actor.isAdmin && order.ownerId !== actor.id)) throw notFound('Order');
      const parts = receivedParts(await repository.jobsOfOrder(orderId)).map((job) => ({ printJobId: job.id, partName: job.partName, material: job.material, colour: job.colour }));
      const kinds = CLAIM_KINDS.filter((kind) => windowProblem(order, kind) === null);
      const open = await repository.hasOpenClaim(orderId);
      const blockedReason = open
        ? 'This order has a claim waiting for review'
        : parts.length === 0
          ? 'This order has no printed parts to claim'
          : kinds.length === 0
            ? windowProblem(order, 'lost')
            : null;
      return { parts, blockedReason, kinds: blockedReason ? [] : kinds };
    },

    /**
     * A seller's claim (admins file for a seller): the order's received parts it names, its photos
     * checked and stored first, then the claim, its parts and photos in one transaction; the photos
     * are removed again if the claim is not stored, so nothing is left behind.
     */
    async file(actor: ClaimActor, orderId: string, input: ClaimInput, uploads: readonly UploadedPhoto[]): Promise<Claim> {
      const order = await repository.claimableOrder(orderId);
      if (!order || (!actor.isAdmin && order.ownerId !== actor.id)) throw notFound('Order');
      const problem = windowProblem(order, input.kind);
      if (problem) throw new AppError('conflict', problem);
      if (await repository.hasOpenClaim(orderId)) throw new AppError('conflict', 'This order has a claim waiting for review already');
      const received = receivedParts(await repository.jobsOfOrder(orderId));
      const partIds = [...new Set(input.partIds)];
      const parts = partIds.map((id) => received.find((job) => job.id === id));
      if (parts.some((part) => part === undefined)) throw new AppError('bad-request', 'partIds: name parts of this order as it was sent');
      if (uploads.length > CLAIM_PHOTO_MAX_COUNT) throw new AppError('bad-request', `At most ${CLAIM_PHOTO_MAX_COUNT} photos`);
      if (uploads.length === 0 && CLAIM_KINDS_NEEDING_PHOTOS.includes(input.kind)) throw new AppError('bad-request', 'photos: show the problem in at least one photo');
      const normalised = [];
      for (const upload of uploads) normalised.push(await normalisePhoto(upload));
      const stored: { storageKey: string; width: number; height: number; sizeBytes: number }[] = [];
      let claimId: string | null = null;
      try {
        for (const photo of normalised) {
          const storageKey = `claims/${order.ownerId}/${crypto.randomUUID()}.jpg`;
          const object = await storage.write(storageKey, Readable.from([photo.jpeg]), { maxBytes: photo.jpeg.length });
          stored.push({ storageKey, width: photo.width, height: photo.height, sizeBytes: object.sizeBytes });
        }
        claimId = await repository.insert({
          orderId,
          ownerId: order.ownerId,
          kind: input.kind,
          description: input.description,
          parts: parts.map((part) => ({ printJobId: part!.id, printerId: part!.printerId, printerName: part!.printerName ?? '', material: part!.material })),
          photos: stored,
        });
      } finally {
        if (claimId === null) await Promise.all(stored.map((photo) => storage.delete(photo.storageKey).catch(() => undefined)));
      }
      if (claimId === null) throw new AppError('conflict', 'This order has a claim waiting for review already');
      await audit.record({ actorId: actor.id, targetUserId: order.ownerId, action: 'claims.file', detail: { claimId, orderId, kind: input.kind }, requestId: actor.requestId });
      const claim = await dto(claimId);
      await tell(
        claim,
        'filed',
        { kind: actor.isAdmin && actor.id !== order.ownerId ? 'admin' : 'user', id: actor.id },
        `Claim filed (${CLAIM_KIND_LABELS[claim.kind].toLowerCase()}): ${claim.parts.map((part) => part.partName).join(', ')}`,
        input.description,
      );
      return claim;
    },

    async list(actor: ClaimActor, query: ClaimListQuery, scope: 'own' | 'all'): Promise<ClaimList> {
      if (scope === 'all' && !actor.isAdmin) throw forbidden('Only admins see every claim');
      const rows = await repository.list({ ownerId: scope === 'all' ? null : actor.id, status: query.status, orderId: query.orderId });
      return { items: await dtos(rows) };
    },

    async get(actor: ClaimActor, id: string): Promise<Claim> {
      return (await dtos([await visible(actor, id)]))[0]!;
    },

    /** A claim's photo (a JPEG we wrote), for its seller and admins. */
    async photo(actor: ClaimActor, claimId: string, photoId: string): Promise<Readable> {
      await visible(actor, claimId);
      const photo = await repository.photo(claimId, photoId);
      if (!photo) throw notFound('Photo');
      return storage.read(photo.storageKey);
    },

    /**
     * An admin's decision, taken once (compare-and-set from open): a reprint of the claimed parts with a
     * replacement parcel, a refund through the payment provider, or a decline with a reason. When the
     * reprint or refund cannot be made, the claim waits again and the admin hears why.
     */
    async decide(actor: ClaimActor, id: string, input: ClaimDecisionInput): Promise<Claim> {
      if (!actor.isAdmin) throw forbidden('Only admins decide claims');
      const row = await repository.find(id);
      if (!row) throw notFound('Claim');
      const status: ClaimStatus = input.decision === 'reprint' ? 'reprint' : input.decision === 'refund' ? 'refunded' : 'declined';
      const taken = await repository.decide(id, { status, note: input.note, refundCents: null, decidedBy: actor.id });
      if (!taken) throw new AppError('conflict', 'This claim was decided already');
      const claimed = await dto(id);
      let detail = input.note;
      try {
        if (input.decision === 'reprint') {
          const reason = input.note || claimed.description;
          const reprints = await deps.reprint(row.orderId, claimed.parts.map((part) => part.printJobId), actor.id, reason);
          await repository.setReprintJobs(id, reprints);
          const jobs = await repository.jobsOfOrder(row.orderId);
          const parcelParts = claimed.parts.map((part) => jobs.find((job) => job.id === part.printJobId)!).map((job) => ({ sizeMm: job.sizeMm, grams: job.grams }));
          const [label] = await deps.replacementLabels(actor, row.orderId, parcelParts);
          if (label) await repository.setReplacementShipment(id, label.id);
          detail = `The parts are printed again and sent in a new parcel${label?.trackingNumber ? ` (tracking ${label.trackingNumber})` : ''}, at no charge.${input.note ? ` ${input.note}` : ''}`;
        } else if (input.decision === 'refund') {
          const refunded = await deps.refund(actor, row.orderId, id, input.amountCents, input.note || `Claim on order ${row.orderNumber}`);
          await repository.setRefund(id, refunded);
          detail = `${formatCents(refunded)} refunded to your card.${input.note ? ` ${input.note}` : ''}`;
        }
      } catch (error) {
        await repository.reopen(id, status);
        throw error;
      }
      await audit.record({ actorId: actor.id, targetUserId: row.ownerId, action: `claims.${input.decision}`, detail: { claimId: id, orderId: row.orderId }, requestId: actor.requestId });
      const claim = await dto(id);
      await tell(claim, 'decided', { kind: 'admin', id: actor.id }, `Claim decided: ${CLAIM_STATUS_LABELS[claim.status].toLowerCase()}${input.note ? ` (${input.note})` : ''}`, detail);
      return claim;
    },

    async stats(actor: ClaimActor): Promise<ClaimStats> {
      if (!actor.isAdmin) throw forbidden('Only admins see the claims figures');
      return repository.stats();
    },
  };
}

export type ClaimsService = ReturnType<typeof createClaimsService>;
