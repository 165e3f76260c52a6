import { randomBytes, randomUUID } from 'node:crypto';
import { count } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/test-app.ts';
import { paymentEvent } from '../../db/schema.ts';
import { SANDBOX_WEBHOOK_SECRET, signSandboxWebhook } from '../../integrations/sandbox-payments/sandbox-payments.ts';

/**
 * Issue 21: started in production without STRIPE_*, the server accepted payment webhooks signed
 * with the sandbox secret written in the source, and stored them (893 KB each, 20,000 a minute
 * per address). In production the route exists only with Stripe keys, and then verifies with the
 * configured secret only; bodies are bounded.
 */
const PRODUCTION = { NODE_ENV: 'production', APP_SECRET: randomBytes(32).toString('hex'), PUBLIC_URL: 'https://print.example.test' };

/** A payment_intent.succeeded event as Stripe sends it, padded to `bytes` when asked. */
function eventBody(bytes = 0): string {
  const event = {
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: `pi_${randomUUID().replaceAll('-', '')}`, object: 'payment_intent', status: 'succeeded', metadata: { note: 'x'.repeat(bytes) } } },
  };
  return JSON.stringify(event);
}

async function postWebhook(t: TestApp, body: string, signature: string) {
  const response = await fetch(`${t.baseUrl}/api/payments/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const storedEvents = async (t: TestApp) => (await t.context.db.select({ n: count() }).from(paymentEvent))[0]!.n;

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('payment webhooks in production (issue 21)', () => {
  it('are off without Stripe keys: 404 for a body signed with the sandbox secret, nothing stored', async () => {
    t = await startTestApp(PRODUCTION);
    const body = eventBody();
    const answer = await postWebhook(t, body, signSandboxWebhook(body, SANDBOX_WEBHOOK_SECRET));
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: expect.any(String) });
    expect(await storedEvents(t)).toBe(0);
  });

  it('with Stripe keys verify with the configured secret only, and refuse bodies over 256 KB', async () => {
    const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
    // The default payment webhook limit (the suites' default raises it for one address's bursts).
    t = await startTestApp(
      { ...PRODUCTION, STRIPE_SECRET_KEY: 'sk_test_production_check', STRIPE_PUBLISHABLE_KEY: 'pk_test_production_check', STRIPE_WEBHOOK_SECRET: webhookSecret },
      { apiPerMinute: 100_000, contactPer10Minutes: 10_000 },
    );

    const forged = eventBody();
    const refused = await postWebhook(t, forged, signSandboxWebhook(forged, SANDBOX_WEBHOOK_SECRET));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toEqual(expect.any(String));
    expect(await storedEvents(t)).toBe(0);

    const large = eventBody(300 * 1024);
    const tooLarge = await postWebhook(t, large, signSandboxWebhook(large, webhookSecret));
    expect(tooLarge.status).toBe(413);
    expect(await storedEvents(t)).toBe(0);

    const genuine = eventBody(1000);
    const accepted = await postWebhook(t, genuine, signSandboxWebhook(genuine, webhookSecret));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ received: true });
    expect(accepted.headers.get('x-ratelimit-limit')).toBe('1200');
    expect(await storedEvents(t)).toBe(1);
  });
});
