import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('runs a local install with no settings at all', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ mode: 'development', port: 3000, seedDemoData: true, databaseUrl: undefined, authRateLimit: true });
    expect(config.appSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses to start production without its secret and public URL, naming the variable', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://print.example.com' })).toThrow(/APP_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', APP_SECRET: 'x'.repeat(40) })).toThrow(/PUBLIC_URL/);
  });

  it('makes new users beta testers on a local install only, unless told otherwise', () => {
    expect(loadConfig({}).newUsersBeta).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).newUsersBeta).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', APP_SECRET: 'x'.repeat(40), PUBLIC_URL: 'https://p.example.com' }).newUsersBeta).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', NEW_USERS_BETA: 'true' }).newUsersBeta).toBe(true);
  });

  it('never creates demo data in production', () => {
    const config = loadConfig({ NODE_ENV: 'production', APP_SECRET: 'x'.repeat(40), PUBLIC_URL: 'https://p.example.com', SEED_DEMO_DATA: 'true' });
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
});
