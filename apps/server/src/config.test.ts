import { describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { ConfigError, DEVELOPMENT_SECRET, appSecretProblem, listensOnLoopbackOnly, loadConfig } from './config.ts';

/** A secret as `openssl rand -hex 32` makes it. */
const STRONG = crypto.randomBytes(32).toString('hex');
const production = (env: Record<string, string>) =>
  loadConfig({ NODE_ENV: 'production', APP_SECRET: STRONG, PUBLIC_URL: 'https://print.example.com', ...env });

describe('loadConfig', () => {
  it('runs a local install with no settings at all', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ mode: 'development', port: 3000, seedDemoData: true, databaseUrl: undefined, authRateLimit: true });
    expect(config.appSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses to start production without its secret and public URL, naming the variable', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://print.example.com' })).toThrow(/APP_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', APP_SECRET: STRONG })).toThrow(/PUBLIC_URL/);
  });

  it('refuses weak APP_SECRETs in production, saying why and how to make a good one', () => {
    const weak: Array<[string, RegExp]> = [
      ['a'.repeat(32), /not random enough/],
      ['a'.repeat(64), /not random enough/],
      ['ab'.repeat(20), /not random enough/],
      ['0123456789abcdef'.repeat(2), /not random enough/],
      ['abcdefghijklmnopqrstuvwxyz0123456789', /not random enough/],
      ['x'.repeat(40), /not random enough/],
      // Issue 21: a repeated word and keyboard walks had 8+ distinct characters and 80+ bits of character entropy.
      ['passwordpasswordpassword12345678', /not random enough: about \d+ bits to guess, 80 needed \(found repetition "passwordpasswordpassword", word "12345678"\)/],
      ['qwertyuiopasdfghjklzxcvbnm123456', /not random enough: .*"qwertyuiop"/],
      ['1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik,', /not random enough/],
      ['Tr0ub4dor&3Tr0ub4dor&3Tr0ub4dor&3', /not random enough: .*repetition/],
      ['iloveyouiloveyou1234567890qwerty', /not random enough/],
      ['abcdefghABCDEFGH0123456789!@#$%^&*()', /not random enough/],
      [DEVELOPMENT_SECRET, /public development secret/],
    ];
    for (const [secret, reason] of weak) {
      expect(() => production({ APP_SECRET: secret }), secret).toThrow(ConfigError);
      expect(() => production({ APP_SECRET: secret }), secret).toThrow(reason);
      expect(() => production({ APP_SECRET: secret }), secret).toThrow(/APP_SECRET: .*openssl rand -hex 32/);
    }
    expect(() => production({ APP_SECRET: crypto.randomBytes(12).toString('hex') })).toThrow(/APP_SECRET: APP_SECRET must be at least 32 characters/);
    expect(appSecretProblem(crypto.randomBytes(12).toString('hex'))).toMatch(/at least 32 bytes/);
  });

  it('accepts strong secrets in every usual encoding, and never a false alarm on random ones', () => {
    expect(production({}).appSecret).toBe(STRONG);
    expect(production({ APP_SECRET: crypto.randomBytes(32).toString('base64') }).mode).toBe('production');
    expect(production({ APP_SECRET: 'correct horse battery staple on a quiet Tuesday' }).mode).toBe('production');
    // Random 32-digit hex secrets the first run rule (more than half of the neighbours adjacent) refused.
    for (const secret of ['66600b899a945b322f17bbab21106dcd', '43216f14500656377ac6676611110536', 'ff22feedccc65109f9a12d34988671de']) {
      expect(appSecretProblem(secret), secret).toBeNull();
    }
    // The estimate costs about half a millisecond; 8,000 secrets keep this test near five seconds. Their
    // weakest in 60,000 tries scored 102 bits, 22 above the limit (see APP_SECRET_MIN_BITS).
    for (let i = 0; i < 2000; i++) {
      for (const secret of [
        crypto.randomBytes(16).toString('hex'),
        crypto.randomBytes(32).toString('hex'),
        crypto.randomBytes(24).toString('base64url'),
        crypto.randomUUID() + crypto.randomUUID(),
      ]) {
        expect(appSecretProblem(secret), secret).toBeNull();
      }
    }
  });

  it('has payment webhooks in production only with Stripe keys (the sandbox signs with a secret from the source)', () => {
    expect(production({}).payments.webhooks).toBe(false);
    expect(production({ STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_PUBLISHABLE_KEY: 'pk_live_x', STRIPE_WEBHOOK_SECRET: `whsec_${crypto.randomBytes(24).toString('base64')}` }).payments.webhooks).toBe(true);
    expect(loadConfig({}).payments.webhooks).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).payments.webhooks).toBe(true);
  });

  it('refuses an http PUBLIC_URL in production (its cookies would not be Secure), and allows it locally', () => {
    expect(() => production({ PUBLIC_URL: 'http://print.example.com' })).toThrow(/PUBLIC_URL: must be https:\/\/ in production/);
    expect(() => production({ PUBLIC_URL: 'http://localhost:3000' })).toThrow(/PUBLIC_URL: must be https/);
    expect(production({ PUBLIC_URL: 'https://print.example.com/' }).publicUrl).toBe('https://print.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://192.168.1.20:3000' }).publicUrl).toBe('http://192.168.1.20:3000');
  });

  it('listens on this machine only by default outside production, anywhere HOST says, and on every interface in production', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'development' }).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(production({}).host).toBe('0.0.0.0');
    expect(production({ HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
  });

  it('tells a loopback HOST (no warning about demo accounts) from one a network can reach', () => {
    for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(listensOnLoopbackOnly(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'print.example.com', '127.0.0.1.example.com']) expect(listensOnLoopbackOnly(host), host).toBe(false);
  });

  it('makes new users beta testers on a local install only, unless told otherwise', () => {
    expect(loadConfig({}).newUsersBeta).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).newUsersBeta).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', APP_SECRET: STRONG, PUBLIC_URL: 'https://p.example.com' }).newUsersBeta).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', NEW_USERS_BETA: 'true' }).newUsersBeta).toBe(true);
  });

  it('never creates demo data in production', () => {
    const config = loadConfig({ NODE_ENV: 'production', APP_SECRET: STRONG, PUBLIC_URL: 'https://p.example.com', SEED_DEMO_DATA: 'true' });
    expect(config.seedDemoData).toBe(false);
  });

  it('reports every bad value at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', APP_SECRET: 'short' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(/PORT/);
      expect(message).toMatch(/DATABASE_URL: DATABASE_URL must be a postgres/);
      expect(message).toMatch(/APP_SECRET: APP_SECRET must be at least 32 characters/);
    }
  });

  it('normalises the admin list and the public URL', () => {
    const config = loadConfig({ ADMIN_EMAILS: ' Boss@Example.com, ,ops@example.com', PUBLIC_URL: 'https://print.example.com/' });
    expect(config.adminEmails).toEqual(['boss@example.com', 'ops@example.com']);
    expect(config.publicUrl).toBe('https://print.example.com');
  });

  it('takes a Discord channel webhook URL only, and keeps its token out of every message', () => {
    const token = 'AbC-123_xyz'.repeat(6);
    expect(loadConfig({}).discord).toBeNull();
    expect(loadConfig({ DISCORD_WEBHOOK_URL: `https://discord.com/api/webhooks/123456789012345678/${token}` }).discord).toEqual({
      webhookId: '123456789012345678',
      webhookToken: token,
      apiUrl: 'https://discord.com/api/v10',
    });
    expect(loadConfig({ DISCORD_WEBHOOK_URL: `https://discordapp.com/api/v10/webhooks/1/${token}` }).discord?.apiUrl).toBe('https://discordapp.com/api/v10');
    for (const bad of [`http://discord.com/api/webhooks/1/${token}`, `https://discord.com.evil.example/api/webhooks/1/${token}`, 'https://discord.com/api/webhooks/not-an-id/x']) {
      const error = (() => {
        try {
          loadConfig({ DISCORD_WEBHOOK_URL: bad });
        } catch (caught) {
          return caught as Error;
        }
        return null;
      })();
      expect(error?.message).toMatch(/DISCORD_WEBHOOK_URL must be a Discord webhook URL/);
      expect(error?.message).not.toContain(token);
    }
    expect(() => loadConfig({ NODE_ENV: 'production', APP_SECRET: 'f3c9a1b27d4e8f60a5b1c9d2e7f4a8b3c6d0e1f2', PUBLIC_URL: 'https://print.example.com', DISCORD_API_URL: 'http://127.0.0.1:1' })).toThrow(/DISCORD_API_URL: for tests only/);
  });
});
