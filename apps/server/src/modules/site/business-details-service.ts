import { businessDetailsSchema, type BusinessDetails, type BusinessDetailsState } from '@layerline/contracts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { SiteSettingRepository } from './site-setting-repository.ts';

const KEY = 'platform.business';

/** Printed until an admin enters the farm's own details, so an unset field is visible on every receipt. */
export const SAMPLE_BUSINESS_DETAILS: BusinessDetails = {
  legalName: 'Layerline print farm (set your business details in Admin → Site)',
  address: 'Address not set',
  email: 'billing@example.com',
  taxId: '',
  website: '',
};

/** The platform's business details (docs/wallet.md): the issuer on every receipt and statement; admins edit them. */
export function createBusinessDetailsService(deps: { settings: SiteSettingRepository; audit: AuditRepository }) {
  const { settings, audit } = deps;
  return {
    async get(): Promise<BusinessDetailsState> {
      const row = await settings.get(KEY);
      const stored = row ? businessDetailsSchema.safeParse(row.value) : null;
      if (!stored?.success) return { details: SAMPLE_BUSINESS_DETAILS, sample: true };
      return { details: stored.data, sample: false };
    },

    async set(actor: { id: string; requestId?: string }, details: BusinessDetails): Promise<BusinessDetailsState> {
      await settings.set(KEY, details, actor.id);
      await audit.record({ actorId: actor.id, targetUserId: null, action: 'site.business-details-set', detail: { legalName: details.legalName }, requestId: actor.requestId });
      return { details, sample: false };
    },
  };
}

export type BusinessDetailsService = ReturnType<typeof createBusinessDetailsService>;
