import { z } from 'zod';
import { pageQueryFields, pageSchema } from './paging.ts';

/**
 * Email notifications (issue 13; docs/notifications.md): the product's own emails, an admin's
 * custom email, a seller's choice of which they get, and the outbox admins read.
 */

export const EMAIL_TEMPLATE_TYPES = [
  'welcome',
  'order_on_hold',
  'payment_failed',
  'payment_action_required',
  'order_refunded',
  'order_price_adjusted',
  'wallet_recharge_failed',
  'order_shipped',
  'order_delivered',
  'claim_updated',
  'affiliate_earning',
  'weekly_summary',
  'custom',
] as const;
export type EmailTemplateType = (typeof EMAIL_TEMPLATE_TYPES)[number];

/**
 * What a seller sees for each kind of email in Account settings. Every kind can be turned off (a
 * commercial sender must honour an unsubscribe); the `actionNeeded` ones tell a seller that an
 * order waits for them, so the page warns before they are turned off. All are on by default.
 */
export const EMAIL_TYPE_INFO: Readonly<Record<EmailTemplateType, { label: string; description: string; actionNeeded: boolean }>> = {
  welcome: { label: 'Welcome', description: 'Once, when you create your account.', actionNeeded: false },
  order_on_hold: { label: 'Order on hold', description: 'An order cannot go ahead until you act (an unknown SKU, an address problem).', actionNeeded: true },
  payment_failed: { label: 'Payment failed', description: 'Your card was declined for an order; the order waits for a new card.', actionNeeded: true },
  payment_action_required: { label: 'Payment needs authentication', description: 'Your bank asks you to confirm a payment for an order.', actionNeeded: true },
  order_refunded: { label: 'Refund', description: 'Money went back to your card for an order, with the reason.', actionNeeded: false },
  order_price_adjusted: { label: 'Price adjusted', description: 'An order’s exact quote changed its price after it was charged: the difference charged to your card.', actionNeeded: false },
  wallet_recharge_failed: { label: 'Auto-recharge failed', description: 'Your card could not top up your prepaid balance; orders go to your card meanwhile.', actionNeeded: true },
  order_shipped: { label: 'Order shipped', description: 'An order left the farm, with the carrier and tracking number.', actionNeeded: false },
  order_delivered: { label: 'Order delivered', description: 'The carrier delivered an order.', actionNeeded: false },
  claim_updated: { label: 'Claims', description: 'A claim you filed on an order was received, or decided (a reprint, a refund or declined).', actionNeeded: false },
  affiliate_earning: { label: 'Affiliate earnings', description: 'A seller you referred had an order charged and you earned a share.', actionNeeded: false },
  weekly_summary: { label: 'Weekly summary', description: 'Every Monday: last week’s orders received and shipped, and what was charged.', actionNeeded: false },
  custom: { label: 'Messages from the Layerline team', description: 'Emails an admin writes to you (service notices, answers).', actionNeeded: false },
};

export const emailTemplateTypeSchema = z.enum(EMAIL_TEMPLATE_TYPES, { error: 'Not a known email type' });

/** A template variable's name: what `{{name}}` in a subject or message is replaced with. */
export const EMAIL_VAR_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

const emailVarsSchema = z
  .record(
    z.string().regex(EMAIL_VAR_NAME, 'Variable names are letters, digits and _ (starting with a letter)'),
    z.union([z.string().max(2000), z.number().finite()]),
  )
  .refine((vars) => Object.keys(vars).length <= 30, 'At most 30 variables')
  .default({});

/** The spec's sendCustomEmail (§7): email, subject, message, templateType, vars. */
export const sendCustomEmailInputSchema = z
  .object({
    email: z.email('Enter a valid email address').max(254),
    subject: z.string().trim().min(1, 'Subject is required').max(200),
    /** Plain text; blank lines separate paragraphs; `{{name}}` is replaced by `vars.name` (escaped in the HTML). */
    message: z.string().trim().min(1, 'Message is required').max(20_000),
    /** Which kind of email this is for the recipient's preferences and unsubscribe link. */
    templateType: emailTemplateTypeSchema.default('custom'),
    vars: emailVarsSchema,
  })
  .strict();
export type SendCustomEmailInput = z.input<typeof sendCustomEmailInputSchema>;

export const EMAIL_STATUSES = ['queued', 'sent', 'failed', 'outbox'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];
export const EMAIL_STATUS_LABELS: Readonly<Record<EmailStatus, string>> = {
  queued: 'Sending',
  sent: 'Sent',
  failed: 'Failed',
  outbox: 'In the outbox',
};

export const emailMessageSummarySchema = z.object({
  id: z.string(),
  userId: z.string().nullable(),
  toAddress: z.string(),
  templateType: z.string(),
  subject: z.string(),
  status: z.enum(EMAIL_STATUSES),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  /** The admin who wrote it (custom emails). */
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
});
export type EmailMessageSummary = z.infer<typeof emailMessageSummarySchema>;

export const emailMessageSchema = emailMessageSummarySchema.extend({
  html: z.string(),
  text: z.string(),
  unsubscribeUrl: z.string().nullable(),
});
export type EmailMessage = z.infer<typeof emailMessageSchema>;

export const emailOutboxQuerySchema = z
  .object({
    ...pageQueryFields(25),
    status: z.enum(EMAIL_STATUSES).optional(),
    /** Part of the recipient's address. */
    search: z.string().trim().max(254).optional(),
  })
  .strict();
export type EmailOutboxQuery = z.input<typeof emailOutboxQuerySchema>;
export const emailOutboxPageSchema = pageSchema(emailMessageSummarySchema);
export type EmailOutboxPage = z.infer<typeof emailOutboxPageSchema>;

export const notificationPreferencesSchema = z.object({
  userId: z.string(),
  /** The kinds of email this seller turned off; every other kind is on. */
  disabled: z.array(emailTemplateTypeSchema),
});
export type NotificationPreferences = z.infer<typeof notificationPreferencesSchema>;

export const updateNotificationPreferencesInputSchema = z
  .object({
    disabled: z.array(emailTemplateTypeSchema).max(EMAIL_TEMPLATE_TYPES.length),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();
export type UpdateNotificationPreferencesInput = z.infer<typeof updateNotificationPreferencesInputSchema>;

export const unsubscribeQuerySchema = z.object({ token: z.string().min(10).max(300) }).strict();

/** What an unsubscribe link is about (its address shown masked: the link may be forwarded). */
export const unsubscribeStatusSchema = z.object({
  templateType: emailTemplateTypeSchema,
  label: z.string(),
  email: z.string(),
  subscribed: z.boolean(),
});
export type UnsubscribeStatus = z.infer<typeof unsubscribeStatusSchema>;
