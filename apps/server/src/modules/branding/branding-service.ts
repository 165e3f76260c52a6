import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Branding, BrandingInput } from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import type { AuditRecord } from '../audit/audit-repository.ts';
import type { FileStorage } from '../designs/file-storage.ts';
import type { BrandingRepository, BrandingRow } from './branding-repository.ts';
import { LogoRejectedError, prepareLogo } from './logo-image.ts';

export interface Actor {
  readonly id: string;
  readonly requestId: string;
}

export interface BrandingServiceDeps {
  repository: BrandingRepository;
  storage: FileStorage;
  audit: { record(entry: AuditRecord): Promise<void> };
}

/** What the packing slip prints of a seller's branding. */
export interface SlipBranding {
  logoPng: Uint8Array | null;
  insertMessage: string;
  thankYouCard: boolean;
}

const NO_BRANDING: SlipBranding = { logoPng: null, insertMessage: '', thankYouCard: false };

function toDto(row: BrandingRow | undefined): Branding {
  if (!row) return { logo: null, insertMessage: '', thankYouCard: false };
  const logo =
    row.logoKey && row.logoFormat && row.logoWidthPx && row.logoHeightPx && row.logoUpdatedAt
      ? { format: row.logoFormat, widthPx: row.logoWidthPx, heightPx: row.logoHeightPx, updatedAt: row.logoUpdatedAt.toISOString() }
      : null;
  return { logo, insertMessage: row.insertMessage, thankYouCard: row.thankYouCard };
}

export function createBrandingService(deps: BrandingServiceDeps) {
  const { repository, storage, audit } = deps;

  const record = (actor: Actor, ownerId: string, action: string, detail: Record<string, unknown>) =>
    audit.record({ actorId: actor.id, targetUserId: ownerId, action, detail, requestId: actor.requestId });

  async function setLogo(ownerId: string, logo: Parameters<BrandingRepository['swapLogo']>[1]): Promise<void> {
    const replaced = await repository.swapLogo(ownerId, logo);
    // The old file goes only after the row no longer names it; a failed delete leaves a stray file, never a broken logo.
    if (replaced && replaced !== logo?.key) await storage.delete(replaced).catch(() => undefined);
  }

  return {
    async get(ownerId: string): Promise<Branding> {
      return toDto(await repository.find(ownerId));
    },

    async saveInsert(actor: Actor, ownerId: string, input: BrandingInput): Promise<Branding> {
      await repository.saveInsert(ownerId, input);
      await record(actor, ownerId, 'branding.update', { thankYouCard: input.thankYouCard, insertMessageLength: input.insertMessage.length });
      return toDto(await repository.find(ownerId));
    },

    /** Validates (PNG) or sanitises and rasterises (SVG) the upload, stores the PNG and points the branding at it. */
    async uploadLogo(actor: Actor, ownerId: string, bytes: Buffer): Promise<Branding> {
      let prepared;
      try {
        prepared = await prepareLogo(bytes);
      } catch (error) {
        if (error instanceof LogoRejectedError) throw new AppError('bad-request', error.message);
        throw error;
      }
      const key = `branding/${randomUUID()}.png`;
      await storage.write(key, Readable.from([prepared.png]), { maxBytes: prepared.png.length });
      try {
        await setLogo(ownerId, { key, format: prepared.format, widthPx: prepared.widthPx, heightPx: prepared.heightPx });
      } catch (error) {
        await storage.delete(key).catch(() => undefined);
        throw error;
      }
      await record(actor, ownerId, 'branding.logo', { format: prepared.format, widthPx: prepared.widthPx, heightPx: prepared.heightPx });
      return toDto(await repository.find(ownerId));
    },

    async removeLogo(actor: Actor, ownerId: string): Promise<Branding> {
      await setLogo(ownerId, null);
      await record(actor, ownerId, 'branding.logo-removed', {});
      return toDto(await repository.find(ownerId));
    },

    /** The stored logo's PNG bytes, or null without one. */
    async logoPng(ownerId: string): Promise<Buffer | null> {
      const row = await repository.find(ownerId);
      return row?.logoKey ? storage.readAll(row.logoKey) : null;
    },

    /** For the packing slip: the logo's bytes, the insert message and whether to print the card. */
    async forPackingSlip(ownerId: string): Promise<SlipBranding> {
      const row = await repository.find(ownerId);
      if (!row) return NO_BRANDING;
      return {
        logoPng: row.logoKey ? await storage.readAll(row.logoKey) : null,
        insertMessage: row.insertMessage,
        thankYouCard: row.thankYouCard,
      };
    },
  };
}

export type BrandingService = ReturnType<typeof createBrandingService>;
