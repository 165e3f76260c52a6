import { SAMPLE_TESTIMONIAL, testimonialSchema, type LandingTestimonial, type Testimonial } from '@layerline/contracts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { SiteSettingRepository } from './site-setting-repository.ts';

const KEY = 'landing.testimonial';

interface Actor {
  readonly id: string;
  readonly requestId?: string;
}

/**
 * The landing page's creator testimonial (§2): the operator sets a real one on the admin
 * overview; until then (or after a reset) the sample copy shows, marked as such for admins.
 */
export function createTestimonialService(deps: { settings: SiteSettingRepository; audit: AuditRepository }) {
  const { settings, audit } = deps;

  return {
    async get(): Promise<LandingTestimonial> {
      const row = await settings.get(KEY);
      // A value stored under an older shape than today's schema falls back to the sample.
      const stored = row ? testimonialSchema.safeParse(row.value) : null;
      if (!row || !stored?.success) return { testimonial: SAMPLE_TESTIMONIAL, sample: true, updatedAt: null };
      return { testimonial: stored.data, sample: false, updatedAt: row.updatedAt.toISOString() };
    },

    async set(actor: Actor, testimonial: Testimonial): Promise<LandingTestimonial> {
      const row = await settings.set(KEY, testimonial, actor.id);
      await audit.record({ actorId: actor.id, targetUserId: null, action: 'site.testimonial-set', detail: { author: testimonial.author, shopUrl: testimonial.shopUrl }, requestId: actor.requestId });
      return { testimonial, sample: false, updatedAt: row.updatedAt.toISOString() };
    },

    /** Back to the sample. */
    async reset(actor: Actor): Promise<void> {
      if (await settings.remove(KEY)) await audit.record({ actorId: actor.id, targetUserId: null, action: 'site.testimonial-reset', requestId: actor.requestId });
    },
  };
}

export type TestimonialService = ReturnType<typeof createTestimonialService>;
