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

export const errorBodySchema = z.object({ error: z.string() });
export type ErrorBody = z.infer<typeof errorBodySchema>;
