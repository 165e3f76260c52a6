import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { isInternalAddress, webhookUrlProblem } from './url-policy.ts';
import { isRetryableStatus } from './webhook-delivery-service.ts';
import { newWebhookSecret, signWebhook, verifyWebhook } from './webhook-signature.ts';

describe('webhook URL policy', () => {
  it('refuses internal addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(isInternalAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isInternalAddress(address), address).toBe(false);
    }
  });

  it('by default (every mode): https to a public host only', () => {
    const production = { allowLocal: false };
    expect(webhookUrlProblem('https://hooks.example.com/layerline', production)).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/layerline', production)).toMatch(/https/);
    for (const url of ['https://localhost/x', 'https://127.0.0.1/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'https://intranet/x', 'https://db.internal/x', 'https://10.0.0.5/x']) {
      expect(webhookUrlProblem(url, production), url).not.toBeNull();
    }
    expect(webhookUrlProblem('https://user:pw@example.com/x', production)).toMatch(/user name/);
    expect(webhookUrlProblem('not a url', production)).toMatch(/full URL/);
    expect(webhookUrlProblem('http://127.0.0.1:8080/hooks', production)).not.toBeNull();
    expect(webhookUrlProblem('https://127.0.0.1:5432/hooks', production)).toMatch(/public address/);
  });

  it('with local receivers allowed (ALLOW_LOCAL_WEBHOOK_RECEIVERS, for testing): http and local hosts are fine', () => {
    expect(webhookUrlProblem('http://127.0.0.1:8080/hooks', { allowLocal: true })).toBeNull();
    expect(webhookUrlProblem('ftp://example.com/x', { allowLocal: true })).not.toBeNull();
  });
});

describe('ALLOW_LOCAL_WEBHOOK_RECEIVERS', () => {
  it('is off unless set, and production refuses to start with it', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).allowLocalWebhookReceivers).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development', ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true' }).allowLocalWebhookReceivers).toBe(true);
    const production = { NODE_ENV: 'production', APP_SECRET: randomBytes(32).toString('hex'), PUBLIC_URL: 'https://print.example.com' };
    expect(loadConfig(production).allowLocalWebhookReceivers).toBe(false);
    expect(() => loadConfig({ ...production, ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true' })).toThrow(/ALLOW_LOCAL_WEBHOOK_RECEIVERS: not allowed in production/);
  });
});

describe('Standard Webhooks signatures', () => {
  it('signs id.timestamp.body with the secret’s decoded bytes and verifies in constant time', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const now = 1_700_000_000;
    const signature = signWebhook(secret, 'evt_1', now, '{"a":1}');
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const headers = { id: 'evt_1', timestamp: String(now), signature };
    expect(verifyWebhook(secret, headers, '{"a":1}', { nowSeconds: now })).toBe(true);
    expect(verifyWebhook(secret, headers, '{"a":2}', { nowSeconds: now })).toBe(false);
    expect(verifyWebhook(newWebhookSecret(), headers, '{"a":1}', { nowSeconds: now })).toBe(false);
    expect(verifyWebhook(secret, { ...headers, signature: 'v1,short' }, '{"a":1}', { nowSeconds: now })).toBe(false);
    expect(verifyWebhook(secret, { ...headers, signature: `v1,bogus ${signature}` }, '{"a":1}', { nowSeconds: now })).toBe(true);
    expect(verifyWebhook(secret, headers, '{"a":1}', { nowSeconds: now + 301 })).toBe(false);
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the standard-webhooks spec's test suite (javascript/src/index.test.ts).
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('retry classification', () => {
  it('retries 408, 429, 5xx and 3xx; never another 4xx', () => {
    expect([408, 429, 500, 502, 503, 301].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 410, 422, 200, 204].some(isRetryableStatus)).toBe(false);
  });
});
