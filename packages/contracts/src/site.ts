import { z } from 'zod';

export const contactMessageSchema = z
  .object({
    name: z.string().trim().min(1, 'Please tell us your name').max(120),
    email: z.email('Please enter a valid email address').max(254),
    subject: z.string().trim().min(1, 'Please add a subject').max(200),
    message: z.string().trim().min(10, 'Please write at least 10 characters').max(5000),
  })
  .strict();
export type ContactMessageInput = z.infer<typeof contactMessageSchema>;

export const contactMessageRecordSchema = contactMessageSchema.extend({
  id: z.string(),
  userId: z.string().nullable(),
  createdAt: z.string(),
});
export type ContactMessageRecord = z.infer<typeof contactMessageRecordSchema>;

export const pageViewSchema = z
  .object({
    title: z.string().trim().min(1).max(200),
    path: z.string().trim().min(1).max(500).startsWith('/'),
  })
  .strict();
export type PageViewInput = z.infer<typeof pageViewSchema>;

export const pageViewStatsSchema = z.object({
  days: z.array(z.object({ day: z.string(), views: z.number().int() })),
  topPaths: z.array(z.object({ path: z.string(), views: z.number().int() })),
  total: z.number().int(),
});
export type PageViewStats = z.infer<typeof pageViewStatsSchema>;

/** Public, non-secret settings the web app needs at start (monitoring keys, mode). */
export const publicConfigSchema = z.object({
  mode: z.enum(['development', 'test', 'production']),
  sentryDsn: z.string().nullable(),
  analyticsKey: z.string().nullable(),
  stripePublishableKey: z.string().nullable(),
  monitoringSampleRates: z.object({ session: z.number(), replay: z.number(), trace: z.number() }),
});
export type PublicConfig = z.infer<typeof publicConfigSchema>;

/** §2: a creator's words on the landing page, with a link to where their work is sold. */
export const testimonialSchema = z
  .object({
    quote: z.string().trim().min(10, 'Write at least 10 characters').max(600, 'At most 600 characters'),
    author: z.string().trim().min(1, 'Who said it?').max(120),
    /** Who they are, under their name, e.g. 'Owner, Okafor Objects'. */
    byline: z.string().trim().max(160).default(''),
    shopName: z.string().trim().min(1, 'Name the link, e.g. the shop’s name').max(120),
    shopUrl: z
      .string()
      .trim()
      .max(2000)
      .refine((value) => /^https:\/\/[^\s/]+\.[^\s]+$/i.test(value) && URL.canParse(value), 'Enter the shop’s https:// address'),
  })
  .strict();
export type Testimonial = z.infer<typeof testimonialSchema>;

/** What the landing page shows: the operator's testimonial, or the sample until they set one. */
export const landingTestimonialSchema = z.object({
  testimonial: testimonialSchema,
  /** true while no admin has set a real one: the sample below is shown. */
  sample: z.boolean(),
  updatedAt: z.string().nullable(),
});
export type LandingTestimonial = z.infer<typeof landingTestimonialSchema>;

/**
 * Shown until the print farm running Layerline sets its own (admin overview). It is sample copy,
 * not a real creator's words: self-hosters replace it with one of their sellers'.
 */
export const SAMPLE_TESTIMONIAL: Testimonial = {
  quote:
    'I design, I list, and the orders just go out. I haven’t touched a spool in months, and my customers get their prints faster than when I did it all myself.',
  author: 'A Layerline creator',
  byline: 'Independent designer selling 3D-printed home goods',
  shopName: 'Browse 3D-printed creator shops on Etsy',
  shopUrl: 'https://www.etsy.com/market/3d_printed',
};

export const errorBodySchema = z.object({ error: z.string() });
export type ErrorBody = z.infer<typeof errorBodySchema>;
