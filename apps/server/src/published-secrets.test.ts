import { describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PUBLISHED_SECRETS, loadConfig } from './config.ts';

/**
 * Issue 21: production accepted payment webhooks signed with the sandbox secret written in the
 * source. Every hard-coded secret of the server's source must be in PUBLISHED_SECRETS, and no
 * variable that signs or verifies may hold one in production.
 */
const REPOSITORY = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const SCANNED = ['apps', 'packages', 'e2e', 'bench', 'scripts'];

/** The repository's TypeScript and scripts, tests included (a fixture is as public as the rest). */
function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** String literals that are secrets: a Stripe-style signing secret, or the value of a constant named …SECRET or …SECRET_KEY. */
function hardCodedSecrets(): Array<{ file: string; value: string }> {
  const found: Array<{ file: string; value: string }> = [];
  for (const file of SCANNED.flatMap((root) => sourceFiles(path.join(REPOSITORY, root)))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/'(whsec_[A-Za-z0-9_+/=-]+)'/g)) found.push({ file, value: match[1]! });
    for (const match of text.matchAll(/const [A-Z_]*SECRET(?:_KEY)? = '([^']+)'/g)) found.push({ file, value: match[1]! });
  }
  return found;
}

const production = (env: Record<string, string>) =>
  loadConfig({ NODE_ENV: 'production', APP_SECRET: crypto.randomBytes(32).toString('hex'), PUBLIC_URL: 'https://print.example.com', ...env });

describe('secrets written in the source', () => {
  it('are all known: the development secret, the sandbox webhook secret and the fixtures (add a new one to fixture-secrets.ts)', () => {
    const secrets = hardCodedSecrets();
    expect(secrets.map((s) => s.value)).toEqual(expect.arrayContaining(['layerline-development-secret-do-not-use-in-production', 'whsec_sandbox_layerline', 'whsec_test']));
    for (const { file, value } of secrets) expect(PUBLISHED_SECRETS.has(value), `${path.relative(REPOSITORY, file)}: ${value}`).toBe(true);
  });

  it('are refused in production in every variable that signs or verifies, naming it', () => {
    for (const secret of PUBLISHED_SECRETS) {
      if (secret.startsWith('whsec_')) {
        const stripe = { STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_PUBLISHABLE_KEY: 'pk_live_x', STRIPE_WEBHOOK_SECRET: secret };
        expect(() => production(stripe), secret).toThrow(/STRIPE_WEBHOOK_SECRET: is a secret written in Layerline's source code/);
      }
      expect(() => production({ SHOPIFY_API_KEY: 'key', SHOPIFY_API_SECRET: secret }), secret).toThrow(/SHOPIFY_API_SECRET: is a secret written in Layerline's source code/);
      expect(() => production({ TIKTOK_APP_SECRET: secret }), secret).toThrow(/TIKTOK_APP_SECRET: is a secret written/);
      expect(() => production({ EBAY_CLIENT_SECRET: secret }), secret).toThrow(/EBAY_CLIENT_SECRET: is a secret written/);
    }
    expect(() => production({ APP_SECRET: 'layerline-development-secret-do-not-use-in-production' })).toThrow(/APP_SECRET: is the public development secret/);
  });

  it('stay usable outside production, where the sandbox needs them', () => {
    expect(loadConfig({ NODE_ENV: 'development', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_sandbox_layerline' }).payments.stripe?.webhookSecret).toBe('whsec_sandbox_layerline');
  });
});
