import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAPIBackend, type Document } from 'openapi-backend';

/**
 * A fake Discord for contract tests (tests only). Every request is validated against Discord's own
 * OpenAPI file (shared/contracts/discord/openapi.json) with openapi-backend, and every answer the
 * fake gives is validated against the same file's response schemas before it is sent: Prism cannot be
 * used as is, because that file's own response examples break its schemas (shared/contracts/README.md).
 * It behaves like a webhook with a rate-limit bucket: `limit` messages per `windowSeconds`, then 429
 * with `retry_after`, the `X-RateLimit-*` headers on every answer. Scripted replies (a 429, a 404, no
 * answer at all) take the place of the next answers.
 */

export const DISCORD_SPEC = '/work/shared/contracts/discord/openapi.json';

export const FAKE_WEBHOOK_ID = '1234567890123456789';
export const FAKE_WEBHOOK_TOKEN = 'fake-token_ABCdef0123456789-layerline-contract-test-token-0000000000';

export interface DiscordFakeRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  readonly at: number;
  /** The spec's operationId, or null. */
  readonly operationId: string | null;
  /** What the spec says is wrong with the request; empty when it is valid. */
  readonly errors: string[];
}

export type DiscordFakeReply =
  { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> } | 'hang';

export interface DiscordFake {
  readonly origin: string;
  readonly requests: DiscordFakeRequest[];
  /** Replies for the next requests, in order (one each), instead of the bucket's answers. */
  readonly script: DiscordFakeReply[];
  /** Answers the fake gave that break the spec's response schemas (should stay empty). */
  readonly responseErrors: string[];
  /** The bucket: `limit` messages per window. */
  setBucket(limit: number, windowSeconds: number): void;
  /** The messages Discord accepted (valid requests answered 200/204). */
  accepted(): DiscordFakeRequest[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const errorsText = (errors: unknown): string[] =>
  Array.isArray(errors)
    ? errors.map((e: Json) =>
        `${String(e.instancePath ?? '')} ${String(e.message ?? '')} ${JSON.stringify(e.params ?? {})}`.trim(),
      )
    : [];

/** Loads Discord's spec (about 1 MB, well under a second); validators compile lazily per operation. */
export const loadDiscordApi = async (): Promise<OpenAPIBackend> => {
  const api = new OpenAPIBackend({
    definition: JSON.parse(readFileSync(DISCORD_SPEC, 'utf8')) as Document,
    quick: true,
    // The spec's custom formats (snowflake, nonce) are not formats ajv knows.
    ajvOpts: { strict: false, validateFormats: false },
  });
  await api.init();
  return api;
};

let sequence = 0n;
const snowflake = () => String(1_300_000_000_000_000_000n + sequence++);

/** A message as Discord answers `?wait=true`: every field MessageResponse requires. */
export function messageFor(body: Json, webhookId: string): Json {
  return {
    id: snowflake(),
    type: 0,
    content: typeof body.content === 'string' ? body.content : '',
    channel_id: '1100000000000000001',
    author: {
      id: webhookId,
      username: 'Layerline farm',
      avatar: null,
      discriminator: '0000',
      public_flags: 0,
      flags: 0,
      bot: true,
      global_name: null,
      primary_guild: null,
    },
    attachments: [],
    embeds: [],
    mentions: [],
    mention_roles: [],
    pinned: false,
    mention_everyone: false,
    tts: false,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    flags: 0,
    components: [],
    webhook_id: webhookId,
  };
}

export const startDiscordFake = async (api: OpenAPIBackend): Promise<DiscordFake> => {
  const requests: DiscordFakeRequest[] = [];
  const script: DiscordFakeReply[] = [];
  const responseErrors: string[] = [];
  const answered = new Set<DiscordFakeRequest>();
  let limit = 5;
  let windowMs = 2000;
  let windowStart = 0;
  let used = 0;
  const operation = api.getOperation('execute_webhook');

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://discord.fake');
      let body: unknown = raw;
      try {
        body = raw ? (JSON.parse(raw) as unknown) : undefined;
      } catch {
        // not JSON: validated (and refused) as it is
      }
      const query = Object.fromEntries(url.searchParams);
      const openApiRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query,
        headers: req.headers as Record<string, string>,
        body,
      };
      const matched = api.matchOperation(openApiRequest);
      const errors = matched
        ? errorsText(api.validateRequest(openApiRequest, matched).errors)
        : [`no operation for ${req.method} ${url.pathname}`];
      const request: DiscordFakeRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query,
        headers: req.headers,
        body,
        at: Date.now(),
        operationId: matched?.operationId ?? null,
        errors,
      };
      requests.push(request);

      const scripted = script.shift();
      if (scripted === 'hang') return; // never answers; the socket is closed in close()
      const t = Date.now();
      if (t - windowStart >= windowMs) {
        windowStart = t;
        used = 0;
      }
      const resetAfter = Math.max(0, (windowStart + windowMs - t) / 1000);
      const limits = (remaining: number) => ({
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': ((windowStart + windowMs) / 1000).toFixed(3),
        'x-ratelimit-reset-after': resetAfter.toFixed(3),
        'x-ratelimit-bucket': 'f0c5a2b9e1d4c3b2a1f0e9d8c7b6a5f4',
      });
      let reply: Exclude<DiscordFakeReply, 'hang'>;
      if (scripted) reply = scripted;
      else if (errors.length > 0)
        reply = {
          status: 400,
          body: { code: 50035, message: `Invalid Form Body (fake Discord): ${errors.join('; ')}` },
        };
      else if (used >= limit) {
        reply = {
          status: 429,
          body: {
            message: 'You are being rate limited.',
            retry_after: Number(resetAfter.toFixed(3)),
            global: false,
            code: 0,
          },
          headers: { ...limits(0), 'retry-after': String(Math.ceil(resetAfter)) },
        };
      } else {
        used += 1;
        answered.add(request);
        reply = {
          status: 200,
          body: messageFor(body as Json, url.pathname.split('/')[2] ?? FAKE_WEBHOOK_ID),
          headers: limits(limit - used),
        };
      }
      if (operation && reply.body !== undefined) {
        const checked = api.validateResponse(reply.body, operation, reply.status);
        if (checked.errors?.length)
          responseErrors.push(`${reply.status}: ${errorsText(checked.errors).join('; ')}`);
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script,
    responseErrors,
    setBucket(newLimit, windowSeconds) {
      limit = newLimit;
      windowMs = windowSeconds * 1000;
      windowStart = 0;
      used = 0;
    },
    accepted: () => requests.filter((request) => answered.has(request)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
