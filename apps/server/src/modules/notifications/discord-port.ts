/**
 * What the farm's alerts need from Discord (integrations/discord implements it): post one message to
 * the farm's channel webhook. The errors say what an operator has to do about a failure.
 */

/** Discord's own limit on a message's `content`. */
export const DISCORD_CONTENT_LIMIT = 2000;

export interface DiscordEmbed {
  readonly title?: string;
  readonly description?: string;
  readonly url?: string;
  readonly color?: number;
}

export interface DiscordMessage {
  /** Plain words; cut to DISCORD_CONTENT_LIMIT by the client. */
  readonly content: string;
  readonly embeds?: readonly DiscordEmbed[];
}

export interface DiscordPoster {
  /** Posts the message; resolves with Discord's message id. Throws one of the errors below. */
  send(message: DiscordMessage): Promise<{ messageId: string | null }>;
}

/** The webhook is gone or its token is wrong (401/403/404): only a new DISCORD_WEBHOOK_URL fixes it; never retried. */
export class DiscordConfigurationError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'DiscordConfigurationError';
    this.status = status;
  }
}

/** Discord asked us to wait longer than a sender waits in-process (or refused the retry too). */
export class DiscordRateLimitedError extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.name = 'DiscordRateLimitedError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Discord refused the message itself (a 400: a field it does not take); sending it again would not help. */
export class DiscordRejectedError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'DiscordRejectedError';
    this.status = status;
  }
}

/** Discord did not answer, or answered 5xx: a later attempt may do. */
export class DiscordUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DiscordUnavailableError';
  }
}
