import type { OrderStatusChangeEvent } from '../orders/order-service.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { AppError } from '../../errors.ts';
import {
  DISCORD_CONTENT_LIMIT,
  DiscordConfigurationError,
  DiscordRateLimitedError,
  DiscordRejectedError,
  type DiscordPoster,
} from './discord-port.ts';

/**
 * The print farm's alerts to its Discord channel (docs/discord.md): what the farm must hear of at
 * once — new orders, a failed payment, a part that failed twice, a background job that ran out of
 * attempts, a printer gone offline — in plain words with the order number or the printer's name.
 * Each alert is a job on the 'discord-alert' queue (farm-alert-jobs.ts), with an id derived from what
 * it is about, so telling the same thing twice (an announcement repeated after a crash, two racing
 * ticks) queues it once. Without DISCORD_WEBHOOK_URL the alerts are written to the log only.
 * An alert never fails the work that raised it: problems are logged.
 */

export type FarmAlert =
  /** Orders announced for the first time (one alert per announcement batch). */
  | { readonly kind: 'new_orders'; readonly orderIds: readonly string[] }
  /** The payments module's: a charge declined (`key`, e.g. the charge id, makes a repeat a no-op). */
  | {
      readonly kind: 'payment_failed';
      readonly orderNumber: string | null;
      readonly sellerName: string;
      readonly reason: string;
      readonly key?: string;
    }
  /** A part whose second (or later) attempt failed. */
  | {
      readonly kind: 'print_failed_twice';
      readonly jobId: string;
      readonly orderId: string;
      readonly partName: string;
      readonly attempt: number;
      readonly reason: string;
      readonly printerId: string | null;
      /** Reprinted once more, or the order went on hold. */
      readonly reprinted: boolean;
    }
  /** A background job out of attempts (its id in the dead-letter queue). */
  | {
      readonly kind: 'dead_letter';
      readonly deadLetterId: string;
      readonly queue: string | null;
      readonly attempts: number | null;
      readonly error: string | null;
    }
  /** A printer that answered (or was online) and no longer does; `lastSeenAt` tells two outages apart. */
  | {
      readonly kind: 'printer_offline';
      readonly printerId: string;
      readonly printerName: string;
      readonly reason: string;
      readonly lastSeenAt: string | null;
    }
  /** A printer that clears itself stopped for a person (continuous printing), after the job `jobId`. */
  | {
      readonly kind: 'continuous_stopped';
      readonly printerId: string;
      readonly printerName: string;
      readonly reason: string;
      readonly jobId: string;
    };

/** What the alerts read to put numbers and names in words. */
export interface FarmAlertLookups {
  /** Order numbers and where each came from (a shop's name, else its platform), by order id. */
  orders(orderIds: readonly string[]): Promise<Map<string, { number: string; channel: string }>>;
  printerName(printerId: string): Promise<string | null>;
}

/** Puts an alert on the queue; `key` (null: none) makes queueing the same alert twice a no-op. */
export type EnqueueFarmAlert = (alert: FarmAlert, key: string | null) => Promise<void>;

/** The source of dead letters (the job queue). */
export interface DeadLetterSource {
  deadLetters(
    limit: number,
  ): Promise<{
    jobs: readonly {
      id: string;
      queue: string | null;
      failedAt: string;
      attempts: number | null;
      error: string | null;
    }[];
  }>;
}

/** Dead letters newer than this are told (older ones were told before, or predate the alerts). */
const DEAD_LETTER_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How many order numbers a new-orders message names before "and N more". */
const LISTED_ORDERS = 40;

/** Text from data (an order number, a shop's name, an error) shown as typed, not as Discord markdown. */
export const plain = (text: string): string =>
  text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\*_~`|>[\]]/g, '\\$&');

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The stable key of an alert (what it is about), or null when it has none. */
export function alertKey(alert: FarmAlert): string | null {
  switch (alert.kind) {
    case 'new_orders':
      return `new-orders:${[...alert.orderIds].sort().join(',')}`;
    case 'payment_failed':
      return alert.key ? `payment-failed:${alert.key}` : null;
    case 'print_failed_twice':
      return `print-failed:${alert.jobId}`;
    case 'dead_letter':
      return `dead-letter:${alert.deadLetterId}`;
    case 'printer_offline':
      return `printer-offline:${alert.printerId}:${alert.lastSeenAt ?? 'never'}`;
    case 'continuous_stopped':
      return `continuous-stopped:${alert.printerId}:${alert.jobId}`;
  }
}

/** An alert in plain words, at most Discord's 2,000 characters. */
export async function alertText(alert: FarmAlert, lookups: FarmAlertLookups): Promise<string> {
  switch (alert.kind) {
    case 'new_orders': {
      const found = await lookups.orders(alert.orderIds);
      const named = alert.orderIds.map((id) => {
        const order = found.get(id);
        return order ? `#${plain(order.number)} (${plain(order.channel)})` : 'an order since removed';
      });
      if (named.length === 1) return `New order ${named[0]}.`;
      const head = `${named.length} new orders: `;
      const shown: string[] = [];
      for (const text of named.slice(0, LISTED_ORDERS)) {
        // Measured with the longest tail it could get, so the message always fits.
        if (`${head}${[...shown, text].join(', ')} and ${named.length} more.`.length > DISCORD_CONTENT_LIMIT)
          break;
        shown.push(text);
      }
      const more = named.length - shown.length;
      return `${head}${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`;
    }
    case 'payment_failed':
      return cut(
        `Payment failed${alert.orderNumber ? ` for order #${plain(alert.orderNumber)}` : ''} of ${plain(alert.sellerName)}: ${plain(alert.reason).replace(/[.!]+$/, '')}. ` +
          'Nothing prints until the seller’s card is charged.',
        DISCORD_CONTENT_LIMIT,
      );
    case 'print_failed_twice': {
      const [orders, printer] = await Promise.all([
        lookups.orders([alert.orderId]),
        alert.printerId ? lookups.printerName(alert.printerId) : Promise.resolve(null),
      ]);
      const number = orders.get(alert.orderId)?.number;
      return cut(
        `Print failed ${alert.attempt === 2 ? 'twice' : `${alert.attempt} times`}: part “${plain(alert.partName)}” of order ` +
          `${number ? `#${plain(number)}` : '(removed)'}${printer ? ` on printer “${plain(printer)}”` : ''} ` +
          `(last: ${plain(cut(alert.reason, 300))}). ` +
          (alert.reprinted
            ? 'It is printed once more.'
            : 'It is not reprinted again: the order is on hold until someone checks it.'),
        DISCORD_CONTENT_LIMIT,
      );
    }
    case 'dead_letter':
      return cut(
        `A background job ran out of attempts: ${plain(alert.queue ?? 'unknown queue')}` +
          `${alert.attempts ? ` after ${alert.attempts} attempt${alert.attempts === 1 ? '' : 's'}` : ''}` +
          `${alert.error ? ` (last error: ${plain(cut(alert.error, 300))})` : ''}. Retry or inspect it under Admin → Background jobs.`,
        DISCORD_CONTENT_LIMIT,
      );
    case 'printer_offline':
      return cut(
        `Printer “${plain(alert.printerName)}” went offline: ${plain(cut(alert.reason, 300))}.`,
        DISCORD_CONTENT_LIMIT,
      );
    case 'continuous_stopped':
      return cut(
        `Printer “${plain(alert.printerName)}” stopped printing by itself and needs a person: ${plain(cut(alert.reason, 600)).replace(/[.!]+$/, '')}.`,
        DISCORD_CONTENT_LIMIT,
      );
  }
}

export function createFarmAlerts(deps: {
  /** Null without DISCORD_WEBHOOK_URL: alerts go to `log` only. */
  discord: DiscordPoster | null;
  lookups: FarmAlertLookups;
  audit: AuditRepository;
  /** Where an alert goes when there is no Discord (the server's output). */
  log: (line: string) => void;
  logError: (obj: unknown, msg: string) => void;
}) {
  const { discord, lookups, audit, log, logError } = deps;
  let enqueue: EnqueueFarmAlert | null = null;

  /** One alert, now: to Discord (or the log). Throws what the queue should retry (Discord away or rate limiting). */
  async function deliver(alert: FarmAlert): Promise<'sent' | 'logged' | 'dropped'> {
    const content = await alertText(alert, lookups);
    if (!discord) {
      log(content);
      return 'logged';
    }
    try {
      await discord.send({ content });
      return 'sent';
    } catch (error) {
      // Only a new webhook URL (or a different message) helps: said once in the log, not retried.
      if (error instanceof DiscordConfigurationError || error instanceof DiscordRejectedError) {
        logError({ err: error, alert: alert.kind }, `Discord alert not sent: ${error.message}`);
        log(content);
        return 'dropped';
      }
      throw error;
    }
  }

  async function alert(event: FarmAlert): Promise<void> {
    try {
      if (enqueue) await enqueue(event, alertKey(event));
      else await deliver(event);
    } catch (error) {
      logError({ err: error, alert: event.kind }, 'farm alert could not be queued');
    }
  }

  return {
    /** Whether a Discord webhook is configured. */
    configured: discord !== null,

    /** The job queue alerts go through; bootstrap connects it once it has started. */
    connect(enqueueAlert: EnqueueFarmAlert): void {
      enqueue = enqueueAlert;
    },

    /** Raises an alert (queued; never throws). The payments module calls it with `payment_failed`. */
    alert,

    deliver,

    /** The orders module's announcements: orders announced for the first time make one alert per batch. */
    async onOrderStatusChanges(events: readonly OrderStatusChangeEvent[]): Promise<void> {
      const orderIds = events.filter((event) => event.from === null).map((event) => event.orderId);
      if (orderIds.length > 0) await alert({ kind: 'new_orders', orderIds });
    },

    /** Alerts for dead letters of the last day not told yet (the alert's key makes each one once). */
    async checkDeadLetters(source: DeadLetterSource, nowMs = Date.now()): Promise<void> {
      const { jobs } = await source.deadLetters(100);
      for (const job of jobs) {
        // An alert that could not reach Discord is not announced through Discord.
        if (job.queue === 'discord-alert' || nowMs - Date.parse(job.failedAt) > DEAD_LETTER_WINDOW_MS)
          continue;
        await alert({
          kind: 'dead_letter',
          deadLetterId: job.id,
          queue: job.queue,
          attempts: job.attempts,
          error: job.error,
        });
      }
    },

    /**
     * The spec's sendDiscordNotification: an admin's own message, sent now (so the admin sees the
     * result) and audited. Without a webhook it is only logged, and the answer says so.
     */
    async sendMessage(
      message: string,
      actor: { actorId: string; requestId?: string },
    ): Promise<{ delivered: boolean; messageId: string | null }> {
      let result: { delivered: boolean; messageId: string | null } = { delivered: false, messageId: null };
      let problem: string | null = null;
      try {
        if (discord) {
          const sent = await discord.send({ content: message });
          result = { delivered: true, messageId: sent.messageId };
        } else log(message);
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
        if (error instanceof DiscordRateLimitedError)
          throw new AppError('rate-limited', `${error.message}. Try again then.`, {
            retryAfterSeconds: error.retryAfterSeconds,
          });
        if (error instanceof DiscordRejectedError) throw new AppError('unprocessable', error.message);
        throw new AppError('unavailable', problem, { cause: error });
      } finally {
        await audit.record({
          actorId: actor.actorId,
          targetUserId: null,
          action: 'discord.message',
          detail: {
            message: cut(message, 200),
            delivered: result.delivered,
            configured: discord !== null,
            ...(problem ? { problem } : {}),
          },
          requestId: actor.requestId,
        });
      }
      return result;
    },
  };
}

export type FarmAlerts = ReturnType<typeof createFarmAlerts>;
