import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OpenAPIBackend } from 'openapi-backend';
import {
  DiscordConfigurationError,
  DiscordRateLimitedError,
  DiscordRejectedError,
  DiscordUnavailableError,
} from '../../modules/notifications/discord-port.ts';
import {
  FAKE_WEBHOOK_ID,
  FAKE_WEBHOOK_TOKEN,
  loadDiscordApi,
  startDiscordFake,
  type DiscordFake,
} from './discord-fake.ts';
import { createDiscordWebhookClient, truncateText, type DiscordWebhookOptions } from './discord-webhook.ts';

/**
 * Contract tests of the Discord webhook client: every request it sends goes to a fake that validates
 * it against Discord's own OpenAPI file (shared/contracts/discord/openapi.json, operation
 * execute_webhook) and answers with bodies valid against the same file (checked by the fake). After
 * each test: no request failed validation, and no answer broke the spec. Rate limits, 429s, a deleted
 * webhook and a Discord that never answers are played by the fake as Discord documents them.
 */

let api: OpenAPIBackend;
let fake: DiscordFake;
let expectInvalid = false;

beforeAll(async () => {
  api = await loadDiscordApi();
  fake = await startDiscordFake(api);
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.length = 0;
  fake.setBucket(5, 2);
  expectInvalid = false;
});
afterEach(() => {
  expect(fake.responseErrors).toEqual([]);
  if (expectInvalid) return;
  for (const request of fake.requests) {
    expect({ path: request.path, errors: request.errors }).toEqual({ path: request.path, errors: [] });
    expect(request.operationId).toBe('execute_webhook');
  }
});

const client = (overrides: Partial<DiscordWebhookOptions> = {}) =>
  createDiscordWebhookClient({
    webhookId: FAKE_WEBHOOK_ID,
    webhookToken: FAKE_WEBHOOK_TOKEN,
    apiBaseUrl: fake.origin,
    ...overrides,
  });

describe('Execute Webhook', () => {
  it('posts the message with ?wait=true and no mentions allowed, and answers Discord’s message id', async () => {
    const sent = await client().send({
      content: '@everyone New order #1001 from <@&42> Shop',
      embeds: [{ title: 'Order #1001', description: 'Two parts', color: 0x2e7d32 }],
    });
    expect(sent.messageId).toMatch(/^\d+$/);
    const [request] = fake.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe(`/webhooks/${FAKE_WEBHOOK_ID}/${FAKE_WEBHOOK_TOKEN}`);
    expect(request!.query).toEqual({ wait: 'true' });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toEqual({
      content: '@everyone New order #1001 from <@&42> Shop',
      embeds: [{ title: 'Order #1001', description: 'Two parts', color: 0x2e7d32 }],
      allowed_mentions: { parse: [] },
    });
  });

  it('cuts content to 2,000 characters without splitting a character, so Discord takes it', async () => {
    const long = '🧊'.repeat(2500);
    await client().send({ content: long });
    const body = fake.requests[0]!.body as { content: string };
    expect(Array.from(body.content)).toHaveLength(2000);
    expect(body.content.endsWith('🧊…')).toBe(true);
    expect(truncateText('short', 2000)).toBe('short');
  });

  it('the fake refuses what Discord’s spec refuses (so a green test means something)', async () => {
    expectInvalid = true;
    const tooLong = await fetch(
      `${fake.origin}/webhooks/${FAKE_WEBHOOK_ID}/${FAKE_WEBHOOK_TOKEN}?wait=true`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'x'.repeat(2001) }),
      },
    );
    expect(tooLong.status).toBe(400);
    const badMentions = await fetch(`${fake.origin}/webhooks/${FAKE_WEBHOOK_ID}/${FAKE_WEBHOOK_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hi', allowed_mentions: { parse: ['nobody'] } }),
    });
    expect(badMentions.status).toBe(400);
    const notSnowflake = await fetch(`${fake.origin}/webhooks/not-a-snowflake/${FAKE_WEBHOOK_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hi' }),
    });
    expect(notSnowflake.status).toBe(400);
    expect(fake.requests.map((r) => r.errors.length > 0)).toEqual([true, true, true]);
  });

  it('a refused message (400) is a DiscordRejectedError, not retried', async () => {
    fake.script.push({ status: 400, body: { code: 50006, message: 'Cannot send an empty message' } });
    const error = await client()
      .send({ content: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordRejectedError);
    expect((error as Error).message).toContain('Cannot send an empty message');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('rate limits', () => {
  it('a burst waits for X-RateLimit-Reset-After when the bucket is empty, and never meets a 429', async () => {
    fake.setBucket(2, 1);
    const discord = client();
    const started = Date.now();
    await Promise.all(Array.from({ length: 5 }, (_, i) => discord.send({ content: `Alert ${i + 1}` })));
    const statuses = fake.requests.map((r) => (fake.accepted().includes(r) ? 200 : 'other'));
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // Two per one-second window: the 3rd waits for the first reset, the 5th for the second.
    const at = fake.requests.map((r) => r.at - started);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(800);
    expect(at[4]! - at[3]!).toBeGreaterThanOrEqual(800);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1800);
    // One at a time, in order.
    expect(fake.requests.map((r) => (r.body as { content: string }).content)).toEqual([
      'Alert 1',
      'Alert 2',
      'Alert 3',
      'Alert 4',
      'Alert 5',
    ]);
  });

  it('a 429 is waited out by its retry_after (JSON body, seconds) and tried once more', async () => {
    fake.script.push({
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 0.75, global: false, code: 0 },
      headers: {
        'retry-after': '1',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': '0.750',
        'x-ratelimit-bucket': 'abc',
      },
    });
    const sent = await client().send({ content: 'After the wait' });
    expect(sent.messageId).toMatch(/^\d+$/);
    expect(fake.requests).toHaveLength(2);
    const waited = fake.requests[1]!.at - fake.requests[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(700);
    expect(waited).toBeLessThan(1500);
  });

  it('a second 429 is a DiscordRateLimitedError (the job queue retries later); a global one holds every send', async () => {
    const limited = {
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 0.2, global: true, code: 0 },
      headers: { 'x-ratelimit-global': 'true', 'retry-after': '1' },
    };
    fake.script.push(limited, limited);
    const discord = client();
    const error = await discord.send({ content: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordRateLimitedError);
    expect((error as Error).message).toContain('global');
    expect(fake.requests).toHaveLength(2);
    // The global hold applies to the next message too.
    await discord.send({ content: 'y' });
    expect(fake.requests[2]!.at - fake.requests[1]!.at).toBeGreaterThanOrEqual(150);
  });

  it('does not sit on a wait longer than it may: a long retry_after is handed to the caller at once', async () => {
    fake.script.push({
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 3600, global: false, code: 0 },
    });
    const error = await client({ maxWaitSeconds: 5 })
      .send({ content: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordRateLimitedError);
    expect((error as DiscordRateLimitedError).retryAfterSeconds).toBe(3600);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('failures', () => {
  it('a deleted webhook (404) or a wrong token (401) is a configuration error, tried once', async () => {
    fake.script.push({ status: 404, body: { message: 'Unknown Webhook', code: 10015 } });
    const gone = await client()
      .send({ content: 'x' })
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DiscordConfigurationError);
    expect((gone as Error).message).toMatch(
      /no longer exists \(404: Unknown Webhook\); set DISCORD_WEBHOOK_URL/,
    );
    fake.script.push({ status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } });
    const wrong = await client()
      .send({ content: 'x' })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(DiscordConfigurationError);
    expect((wrong as DiscordConfigurationError).status).toBe(401);
    expect(fake.requests).toHaveLength(2);
    // The token is a secret: never in a message.
    expect(`${(gone as Error).message} ${(wrong as Error).message}`).not.toContain(FAKE_WEBHOOK_TOKEN);
  });

  it('a Discord that does not answer times out, is tried again, then is DiscordUnavailableError', async () => {
    fake.script.push('hang', 'hang');
    const error = await client({ timeoutMs: 200, maxAttempts: 2, sleep: async () => {} })
      .send({ content: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordUnavailableError);
    expect((error as Error).message).toContain('did not answer in time');
    expect(fake.requests).toHaveLength(2);
  });

  it('a 5xx is retried, then the message goes', async () => {
    fake.script.push({ status: 502, body: { message: 'Bad gateway', code: 0 } });
    const sent = await client({ sleep: async () => {} }).send({ content: 'x' });
    expect(sent.messageId).toMatch(/^\d+$/);
    expect(fake.requests).toHaveLength(2);
  });
});
