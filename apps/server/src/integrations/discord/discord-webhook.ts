import { MarketplaceRejectedError } from '../../modules/shops/connector.ts';
import {
  DISCORD_CONTENT_LIMIT,
  DiscordConfigurationError,
  DiscordRateLimitedError,
  DiscordRejectedError,
  DiscordUnavailableError,
  type DiscordEmbed,
  type DiscordMessage,
  type DiscordPoster,
} from '../../modules/notifications/discord-port.ts';
import { createHttpClient, OutboundUnavailableError } from '../http-client/http-client.ts';

/**
 * The one client for Discord's "Execute Webhook" (POST /webhooks/{webhook.id}/{webhook.token}?wait=true,
 * Discord API v10; contract: shared/contracts/discord/openapi.json, operation execute_webhook), on our
 * outbound HTTP client (host allowlist: discord.com, discordapp.com, and a test base URL; no redirects;
 * 5xx and network errors retried with backoff). What Discord documents and this client does:
 * - `allowed_mentions: { parse: [] }` on every message: nothing in it can ping @everyone, a role or a user;
 * - `content` cut to 2,000 characters (whole code points, with an ellipsis), embeds to Discord's limits;
 * - rate limits: after each answer, `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset-After` holds the
 *   next send until the bucket resets; a 429 is waited out by its `retry_after` (JSON body, seconds;
 *   else `Retry-After`) and tried once more; `X-RateLimit-Global` holds every send. Sends of one client
 *   go one at a time, so a burst queues behind the limit instead of running into it.
 * - 401/403/404 (the webhook was deleted or its token is wrong) → DiscordConfigurationError, not retried.
 * The webhook token is part of the URL: it never appears in an error message or a log.
 */

export interface DiscordWebhookOptions {
  readonly webhookId: string;
  readonly webhookToken: string;
  /** Default https://discord.com/api/v10; tests point it at a local contract fake. */
  readonly apiBaseUrl?: string;
  /** Per attempt; default 10 s. */
  readonly timeoutMs?: number;
  /** Attempts for 5xx and network failures; default 3. */
  readonly maxAttempts?: number;
  /** The longest rate-limit wait done in-process; longer → DiscordRateLimitedError. Default 60 s. */
  readonly maxWaitSeconds?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  readonly fetch?: typeof fetch;
}

export const DISCORD_API_BASE_URL = 'https://discord.com/api/v10';
const DISCORD_ORIGINS = ['https://discord.com', 'https://discordapp.com'];

/** Discord's documented limits on an embed's fields (the message's are in discord-port.ts). */
const EMBED_LIMITS = { count: 10, title: 256, description: 4096 } as const;

/** `text` cut to at most `limit` code points, ending in an ellipsis when it was cut; never splits a surrogate pair. */
export function truncateText(text: string, limit: number): string {
  const points = Array.from(text);
  if (points.length <= limit) return text;
  return `${points.slice(0, limit - 1).join('')}…`;
}

const truncateEmbed = (embed: DiscordEmbed): DiscordEmbed => ({
  ...embed,
  ...(embed.title !== undefined ? { title: truncateText(embed.title, EMBED_LIMITS.title) } : {}),
  ...(embed.description !== undefined
    ? { description: truncateText(embed.description, EMBED_LIMITS.description) }
    : {}),
});

/** Seconds from a rate-limit header, or null. */
const seconds = (value: string | null): number | null => {
  if (value === null || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createDiscordWebhookClient(options: DiscordWebhookOptions): DiscordPoster {
  const base = (options.apiBaseUrl ?? DISCORD_API_BASE_URL).replace(/\/$/, '');
  const origins = [...new Set([...DISCORD_ORIGINS, new URL(base).origin])];
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const maxWaitMs = (options.maxWaitSeconds ?? 60) * 1000;
  const http = createHttpClient({
    vendor: 'Discord',
    allowedOrigins: origins,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxAttempts: options.maxAttempts ?? 3,
    sleep,
    now,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const url = `${base}/webhooks/${encodeURIComponent(options.webhookId)}/${encodeURIComponent(options.webhookToken)}?wait=true`;

  // The webhook's bucket (one webhook is one route) and the global limit: the earliest next send.
  let routeFreeAt = 0;
  let globalFreeAt = 0;
  let queue: Promise<unknown> = Promise.resolve();

  /** Remembers what an answer's headers say about the next send. */
  function noteLimits(headers: Headers): void {
    const remaining = headers.get('x-ratelimit-remaining');
    const resetAfter = seconds(headers.get('x-ratelimit-reset-after'));
    if (remaining !== null && Number(remaining) <= 0 && resetAfter !== null)
      routeFreeAt = Math.max(routeFreeAt, now() + resetAfter * 1000);
  }

  async function waitForBucket(): Promise<void> {
    const wait = Math.max(routeFreeAt, globalFreeAt) - now();
    if (wait <= 0) return;
    if (wait > maxWaitMs) {
      throw new DiscordRateLimitedError(
        `Discord asks to wait ${Math.ceil(wait / 1000)} s before the next message`,
        Math.ceil(wait / 1000),
      );
    }
    await sleep(wait);
  }

  async function post(body: unknown) {
    try {
      return await http.request({
        method: 'POST',
        url,
        json: body,
        headers: { 'user-agent': 'Layerline-Alerts/1.0' },
        acceptStatuses: [401, 403, 404, 429],
        operation: 'executeWebhook',
      });
    } catch (error) {
      if (error instanceof OutboundUnavailableError) {
        throw new DiscordUnavailableError(
          `Discord ${error.reason === 'timeout' ? 'did not answer in time' : error.reason === 'status' ? `answered ${error.status}` : 'could not be reached'}; the alert is sent again later`,
          { cause: error },
        );
      }
      if (error instanceof MarketplaceRejectedError) {
        throw new DiscordRejectedError(
          `Discord refused the message: ${error.message.replace(/^Discord executeWebhook /, '')}`,
          error.status,
        );
      }
      throw error;
    }
  }

  async function sendNow(message: DiscordMessage): Promise<{ messageId: string | null }> {
    const body = {
      content: truncateText(message.content, DISCORD_CONTENT_LIMIT),
      ...(message.embeds?.length
        ? { embeds: message.embeds.slice(0, EMBED_LIMITS.count).map(truncateEmbed) }
        : {}),
      // Nothing a message says (an order number, a seller's shop name) may ping anyone.
      allowed_mentions: { parse: [] },
    };
    for (let attempt = 0; ; attempt += 1) {
      await waitForBucket();
      const response = await post(body);
      noteLimits(response.headers);
      if (response.status === 429) {
        const answer = (response.body ?? {}) as { retry_after?: unknown; global?: unknown };
        const retryAfter =
          (typeof answer.retry_after === 'number' ? answer.retry_after : null) ??
          seconds(response.headers.get('retry-after')) ??
          seconds(response.headers.get('x-ratelimit-reset-after')) ??
          1;
        const global = answer.global === true || response.headers.get('x-ratelimit-global') === 'true';
        const freeAt = now() + retryAfter * 1000;
        if (global) globalFreeAt = Math.max(globalFreeAt, freeAt);
        else routeFreeAt = Math.max(routeFreeAt, freeAt);
        // One retry after the wait Discord asked for; a second 429 is left to the job queue's retries.
        if (attempt === 0 && retryAfter * 1000 <= maxWaitMs) continue;
        throw new DiscordRateLimitedError(
          `Discord is rate limiting ${global ? 'every sender (global limit)' : 'this webhook'}; retry after ${retryAfter} s`,
          Math.ceil(retryAfter),
        );
      }
      if (response.status === 401 || response.status === 403 || response.status === 404) {
        const detail = (response.body as { message?: unknown } | null)?.message;
        throw new DiscordConfigurationError(
          `The Discord webhook ${response.status === 404 ? 'no longer exists' : 'refused our token'} (${response.status}${typeof detail === 'string' ? `: ${detail}` : ''}); set DISCORD_WEBHOOK_URL to a live webhook`,
          response.status,
        );
      }
      const id = (response.body as { id?: unknown } | null)?.id;
      return { messageId: typeof id === 'string' ? id : null };
    }
  }

  return {
    send(message) {
      const result = queue.then(() => sendNow(message));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
