import {
  EMAIL_TEMPLATE_TYPES,
  EMAIL_TYPE_INFO,
  PAYMENT_ACTION_HOLD_PREFIX,
  PAYMENT_HOLD_PREFIX,
  sendCustomEmailInputSchema,
  type EmailMessage,
  type EmailOutboxPage,
  type EmailStatus,
  type EmailTemplateType,
  type NotificationPreferences,
  type SendCustomEmailInput,
  type Shipment,
  type UnsubscribeStatus,
} from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { OrderStatusChangeEvent } from '../orders/order-service.ts';
import { renderCustom, renderTemplate, type Footer, type ProductTemplate, type TemplateVars } from './email-templates.ts';
import type { Mailer } from './mailer.ts';
import type { NotificationRepository } from './notification-repository.ts';
import { createUnsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token.ts';

/** A product email for one user; see docs/notifications.md. */
export interface NotifyRequest<T extends ProductTemplate = ProductTemplate> {
  readonly userId: string;
  readonly template: T;
  readonly vars: TemplateVars[T];
  /** What made it (`payment_failed:<charge id>`): the same key never mails twice. */
  readonly dedupeKey: string;
}

export interface NotifyResult {
  /** stored: kept (status queued with SMTP, else outbox); the others stored nothing. */
  readonly outcome: 'stored' | 'duplicate' | 'disabled' | 'no-recipient';
  readonly messageId: string | null;
}

/** The function other modules (payments, shipping, affiliates) call to email a seller. */
export type Notify = <T extends ProductTemplate>(request: NotifyRequest<T>) => Promise<NotifyResult>;

export interface NotificationActor {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

/** The order facts the emails about orders need. */
export interface NotificationOrders {
  find(orderId: string): Promise<{ id: string; ownerId: string; externalId: string; status: string; holdReason: string | null } | undefined>;
  shipments(orderId: string): Promise<readonly Shipment[]>;
}

export interface EmailQueue {
  /** Queues attempt `attempt` (1-based) of sending a message, not before `startAfter`. */
  send(messageId: string, attempt: number, startAfter?: Date): Promise<void>;
}

export interface NotificationServiceDeps {
  readonly repository: NotificationRepository;
  readonly audit: AuditRepository;
  readonly appSecret: string;
  /** Where links in emails point (PUBLIC_URL, else this machine). */
  readonly baseUrl: string;
  /** SMTP (SMTP_URL); null keeps every message in the outbox for admins to read. */
  readonly transport: Mailer | null;
  readonly orders: NotificationOrders;
  /** Attempts per message and the first retry's delay (doubling after). */
  readonly retry: { readonly maxAttempts: number; readonly baseDelayMs: number };
  readonly log?: { error(obj: unknown, msg?: string): void };
}

const isPaymentHold = (reason: string | null) => !!reason && (reason.startsWith(PAYMENT_HOLD_PREFIX) || reason.startsWith(PAYMENT_ACTION_HOLD_PREFIX));

/** a***@example.com: enough for its owner to recognise, little for whoever a link was forwarded to. */
function maskEmail(email: string): string {
  const at = email.indexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** Monday 00:00 UTC of the week `date` falls in. */
export function weekStart(date: Date): Date {
  const start = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  return start;
}

function money(cents: Readonly<Record<string, number>>): string {
  const parts = Object.entries(cents)
    .filter(([, amount]) => amount !== 0)
    .map(([currency, amount]) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount / 100));
  return parts.length > 0 ? parts.join(' + ') : new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(0);
}

/**
 * Email notifications: the product's own emails (notify), an admin's custom email, preferences and
 * unsubscribe links, the outbox for admins, and sending through the job queue with retries.
 */
export function createNotificationService(deps: NotificationServiceDeps) {
  const { repository, audit, baseUrl } = deps;
  let queue: EmailQueue | null = null;

  const unsubscribeToken = (userId: string, templateType: EmailTemplateType) => createUnsubscribeToken(deps.appSecret, { userId, templateType });
  const footerFor = (userId: string | null, templateType: EmailTemplateType): Footer & { listUnsubscribe: string | null } => {
    const token = userId ? encodeURIComponent(unsubscribeToken(userId, templateType)) : null;
    return {
      unsubscribeUrl: token ? `${baseUrl}/unsubscribe?token=${token}` : null,
      // RFC 8058: the address a mail client POSTs `List-Unsubscribe=One-Click` to.
      listUnsubscribe: token ? `${baseUrl}/api/notifications/unsubscribe?token=${token}` : null,
      settingsUrl: `${baseUrl}/account-settings#email-notifications`,
    };
  };

  /** Queues the first attempt of a stored message (with SMTP); a queue not connected yet leaves it to the sweep. */
  async function queueFirst(messageId: string): Promise<void> {
    if (!queue) return;
    try {
      await queue.send(messageId, 1);
    } catch (error) {
      // Stored as queued: the sweep queues it again.
      deps.log?.error({ err: error, messageId }, 'could not queue an email; the sweep will');
    }
  }

  async function store(message: Parameters<NotificationRepository['insert']>[0]): Promise<string | null> {
    const id = await repository.insert(message);
    if (id && message.status === 'queued') await queueFirst(id);
    return id;
  }

  const notify: Notify = async (request) => {
    const recipient = await repository.recipient(request.userId);
    if (!recipient) return { outcome: 'no-recipient', messageId: null };
    if (recipient.disabled.includes(request.template)) return { outcome: 'disabled', messageId: null };
    // Render only for a new event (an announcement told again finds its key).
    if ((await repository.existingDedupeKeys([request.dedupeKey])).size > 0) return { outcome: 'duplicate', messageId: null };
    const footer = footerFor(recipient.userId, request.template);
    const rendered = renderTemplate(request.template, request.vars, footer);
    const id = await store({
      userId: recipient.userId,
      toAddress: recipient.email,
      templateType: request.template,
      ...rendered,
      unsubscribeUrl: footer.listUnsubscribe,
      status: deps.transport ? 'queued' : 'outbox',
      dedupeKey: request.dedupeKey,
      createdBy: null,
    });
    return id ? { outcome: 'stored', messageId: id } : { outcome: 'duplicate', messageId: null };
  };

  const orderUrl = (orderId: string) => `${baseUrl}/orders?order=${encodeURIComponent(orderId)}`;
  const absolute = (url: string | null) => (url && url.startsWith('/') ? `${baseUrl}${url}` : url);

  /** A failure throws: the orders' sweep announces the change again, and the dedupe key keeps it to one email. */
  async function onOrderStatusChange(event: OrderStatusChangeEvent): Promise<void> {
    if (event.to !== 'on_hold' && event.to !== 'shipped' && event.to !== 'delivered') return;
    const order = await deps.orders.find(event.orderId);
    if (!order) return;
    const dedupeKey = `order_${event.to}:${event.announcementId}`;
    if (event.to === 'on_hold') {
      const reason = event.created?.holdReason ?? order.holdReason;
      // Payments tells the seller about its own holds (payment_failed, payment_action_required).
      if (isPaymentHold(reason)) return;
      await notify({ userId: order.ownerId, template: 'order_on_hold', vars: { orderNumber: order.externalId, reason: reason ?? 'On hold', orderUrl: orderUrl(order.id) }, dedupeKey });
    } else if (event.to === 'shipped') {
      const live = (await deps.orders.shipments(order.id)).filter((s) => s.status !== 'voided' && s.status !== 'failed' && s.trackingNumber);
      await notify({
        userId: order.ownerId,
        template: 'order_shipped',
        vars: {
          orderNumber: order.externalId,
          carrier: [...new Set(live.map((s) => s.carrier).filter(Boolean))].join(', ') || null,
          trackingNumber: live.map((s) => s.trackingNumber).join(', ') || null,
          trackingUrl: absolute(live.find((s) => s.trackingUrl)?.trackingUrl ?? null),
          orderUrl: orderUrl(order.id),
        },
        dedupeKey,
      });
    } else {
      await notify({ userId: order.ownerId, template: 'order_delivered', vars: { orderNumber: order.externalId, orderUrl: orderUrl(order.id) }, dedupeKey });
    }
  }

  return {
    notify,

    /** The welcome email, once per account (called when better-auth has created the user). */
    async welcome(userId: string, name: string): Promise<void> {
      await notify({ userId, template: 'welcome', vars: { name: name || 'there', dashboardUrl: `${baseUrl}/dashboard` }, dedupeKey: `welcome:${userId}` });
    },

    /** Orders' status changes (orders.onStatusChanges): on hold (not for payment), shipped, delivered. */
    async onOrderStatusChanges(events: readonly OrderStatusChangeEvent[]): Promise<void> {
      for (const event of events) await onOrderStatusChange(event);
    },

    /**
     * Last week's summary for every seller who had orders or charges in it (run by a timer; a week is
     * mailed once per seller whatever runs it). Answers how many were stored.
     */
    async sendWeeklySummaries(now: Date = new Date()): Promise<number> {
      const to = weekStart(now);
      const from = new Date(to.getTime() - 7 * 24 * 60 * 60 * 1000);
      const week = from.toISOString().slice(0, 10);
      const activity = await repository.weeklyActivity(from, to);
      const done = await repository.existingDedupeKeys(activity.map((a) => `weekly_summary:${a.userId}:${week}`));
      let stored = 0;
      for (const entry of activity) {
        const dedupeKey = `weekly_summary:${entry.userId}:${week}`;
        if (done.has(dedupeKey)) continue;
        const result = await notify({
          userId: entry.userId,
          template: 'weekly_summary',
          vars: {
            weekOf: new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(from),
            ordersReceived: entry.ordersReceived,
            ordersShipped: entry.ordersShipped,
            amountCharged: money(entry.chargedCents),
            dashboardUrl: `${baseUrl}/dashboard`,
          },
          dedupeKey,
        });
        if (result.outcome === 'stored') stored += 1;
      }
      return stored;
    },

    /** The spec's sendCustomEmail: an admin's email to any address (a user's preferences are honoured). */
    async sendCustomEmail(actor: NotificationActor, raw: SendCustomEmailInput): Promise<EmailMessage> {
      if (!actor.isAdmin) throw forbidden('Only admins may send emails');
      const input = sendCustomEmailInputSchema.parse(raw);
      const recipient = await repository.recipientByEmail(input.email);
      if (recipient?.disabled.includes(input.templateType)) {
        throw new AppError('conflict', `${input.email} turned off “${EMAIL_TYPE_INFO[input.templateType].label}” emails`);
      }
      const footer = footerFor(recipient?.userId ?? null, input.templateType);
      const rendered = renderCustom(input, footer);
      const id = await store({
        userId: recipient?.userId ?? null,
        toAddress: recipient?.email ?? input.email.toLowerCase(),
        templateType: input.templateType,
        ...rendered,
        unsubscribeUrl: footer.listUnsubscribe,
        status: deps.transport ? 'queued' : 'outbox',
        dedupeKey: null,
        createdBy: actor.id,
      });
      if (!id) throw new Error('An email without a dedupe key was not stored');
      await audit.record({
        actorId: actor.id,
        targetUserId: recipient?.userId ?? null,
        action: 'notifications.custom-email-sent',
        detail: { messageId: id, to: input.email, subject: rendered.subject, templateType: input.templateType },
        requestId: actor.requestId,
      });
      return (await repository.detail(id))!;
    },

    async preferences(userId: string): Promise<NotificationPreferences> {
      const disabled = await repository.disabled(userId);
      return { userId, disabled: EMAIL_TEMPLATE_TYPES.filter((type) => disabled.includes(type)) };
    },

    async setPreferences(actor: NotificationActor, userId: string, disabled: readonly EmailTemplateType[]): Promise<NotificationPreferences> {
      if (!(await repository.recipient(userId))) throw notFound('User');
      const unique = EMAIL_TEMPLATE_TYPES.filter((type) => disabled.includes(type));
      await repository.setDisabled(userId, unique);
      await audit.record({ actorId: actor.id, targetUserId: userId, action: 'notifications.preferences-updated', detail: { disabled: unique }, requestId: actor.requestId });
      return { userId, disabled: unique };
    },

    /** What an unsubscribe link is about, and whether that kind is still on. */
    async unsubscribeStatus(token: string): Promise<UnsubscribeStatus> {
      const target = verifyUnsubscribeToken(deps.appSecret, token);
      const recipient = target && (await repository.recipient(target.userId));
      if (!target || !recipient) throw new AppError('not-found', 'This unsubscribe link is not valid');
      return { templateType: target.templateType, label: EMAIL_TYPE_INFO[target.templateType].label, email: maskEmail(recipient.email), subscribed: !recipient.disabled.includes(target.templateType) };
    },

    /** Turns off the kind of email the link names (RFC 8058 one-click, or the page's button); repeating it changes nothing. */
    async unsubscribe(token: string): Promise<UnsubscribeStatus> {
      const target = verifyUnsubscribeToken(deps.appSecret, token);
      const recipient = target && (await repository.recipient(target.userId));
      if (!target || !recipient) throw new AppError('not-found', 'This unsubscribe link is not valid');
      await repository.disable(target.userId, target.templateType);
      return { templateType: target.templateType, label: EMAIL_TYPE_INFO[target.templateType].label, email: maskEmail(recipient.email), subscribed: false };
    },

    unsubscribeToken,

    async outbox(options: { cursor?: string | undefined; limit: number; status?: EmailStatus | undefined; search?: string | undefined }): Promise<EmailOutboxPage> {
      return repository.page(options);
    },

    async message(id: string): Promise<EmailMessage> {
      const message = await repository.detail(id);
      if (!message) throw notFound('Email');
      return message;
    },

    /** Whether stored messages are sent (SMTP) or kept in the outbox. */
    sends: deps.transport !== null,

    connectQueue(emailQueue: EmailQueue): void {
      queue = emailQueue;
    },

    /**
     * One attempt at sending a message (the 'send-email' job). A refusal is counted and retried after
     * a doubling delay until `maxAttempts`, then the message is failed; the job itself succeeds, so a
     * message's retries are its own (and shown to admins) rather than the queue's.
     */
    async deliver(messageId: string): Promise<'sent' | 'retrying' | 'failed' | 'skipped'> {
      const message = await repository.sendable(messageId);
      if (!message || message.status !== 'queued' || !deps.transport) return 'skipped';
      try {
        await deps.transport.send({
          to: message.toAddress,
          subject: message.subject,
          text: message.text,
          html: message.html,
          headers: message.unsubscribeUrl
            ? { 'List-Unsubscribe': `<${message.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
            : undefined,
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const final = message.attempts + 1 >= deps.retry.maxAttempts;
        const attempts = await repository.markAttemptFailed(message.id, reason, final);
        // 0: no longer queued (another attempt settled it meanwhile).
        if (attempts === 0) return 'skipped';
        if (final) return 'failed';
        const delay = deps.retry.baseDelayMs * 2 ** (attempts - 1);
        await queue?.send(message.id, attempts + 1, new Date(Date.now() + delay));
        return 'retrying';
      }
      await repository.markSent(message.id);
      return 'sent';
    },

    /** Queues again the messages whose job was lost (a crash between storing and queueing). */
    async sweep(olderThanMs: number): Promise<number> {
      if (!queue || !deps.transport) return 0;
      const waiting = await repository.queuedBefore(new Date(Date.now() - olderThanMs), 100);
      for (const message of waiting) await queue.send(message.id, message.attempts + 1);
      return waiting.length;
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
