import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';
import { FIXTURE_SECRETS } from './fixture-secrets.ts';
import { SANDBOX_WEBHOOK_SECRET } from './integrations/sandbox-payments/sandbox-payments.ts';
import { secretStrength } from './platform/secret-strength.ts';

/**
 * Configuration, parsed once at boot from the environment. This is the only module that reads
 * process.env; everything else receives the typed result. A bad value stops the process with a
 * message naming the variable, before anything listens.
 */
const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

const emailList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((email) => email.trim().toLowerCase())
      .filter(Boolean),
  );

/** A channel webhook as Discord shows it (Server Settings → Integrations → Webhooks → Copy Webhook URL). */
const DISCORD_WEBHOOK_URL = /^https:\/\/(discord\.com|discordapp\.com)\/api(?:\/v\d{1,2})?\/webhooks\/(\d{1,20})\/([A-Za-z0-9_-]{1,200})\/?$/;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  // No default here: outside production the server listens on loopback only (see loadConfig).
  HOST: z.string().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// connection string')
    .optional(),
  APP_SECRET: z.string().min(32, 'APP_SECRET must be at least 32 characters').optional(),
  ADMIN_EMAILS: emailList,
  SEED_DEMO_DATA: z.enum(['auto', 'true', 'false']).default('auto'),
  NEW_USERS_BETA: z.enum(['auto', 'true', 'false']).default('auto'),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(5).default(0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SENTRY_DSN: z.url().optional(),
  ANALYTICS_KEY: z.string().min(1).optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().min(1).optional(),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_/, 'STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_… / rk_…)').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_/, 'STRIPE_WEBHOOK_SECRET must be the endpoint signing secret (whsec_…)').optional(),
  /** Tests only: where the Stripe SDK sends requests (a local fake). */
  STRIPE_API_URL: z.url().optional(),
  PAYMENTS_CHARGE_ORDERS: z.enum(['auto', 'true', 'false']).default('auto'),
  AFFILIATE_SHARE_PERCENT: z.coerce.number().min(0).max(100).default(10),
  AFFILIATE_PERIOD_MONTHS: z.coerce.number().int().min(1).max(120).default(12),
  AFFILIATE_HOLD_DAYS: z.coerce.number().int().min(0).max(365).default(30),
  AUTH_RATE_LIMIT: booleanFlag,
  ALLOW_LOCAL_WEBHOOK_RECEIVERS: booleanFlag,
  PRINTER_ALLOW_LOOPBACK: booleanFlag,
  FARM_AUTOPILOT: z.enum(['auto', 'true', 'false']).default('auto'),
  FARM_AUTOPILOT_DELAY_S: z.coerce.number().min(0).max(3600).default(3),
  FARM_TICK_S: z.coerce.number().min(0.2).max(300).default(2),
  FARM_PARTS_PER_PLATE: z.coerce.number().int().min(1).max(64).optional(),
  SHIPPING_SANDBOX: z.enum(['auto', 'true', 'false']).default('auto'),
  SANDBOX_CARRIER_DAY_S: z.coerce.number().min(0.5).max(86_400).optional(),
  SHIPPING_AUTO_BUY: z.enum(['auto', 'true', 'false']).default('auto'),
  TRACKING_POLL_S: z.coerce.number().min(0.2).max(86_400).optional(),
  SHIPPO_CLIENT_ID: z.string().min(1).optional(),
  SHIPPO_CLIENT_SECRET: z.string().min(1).optional(),
  SHIPPO_API_URL: z.url().default('https://api.goshippo.com'),
  SHIPPO_OAUTH_URL: z.url().default('https://goshippo.com'),
  SHIPSTATION_V1_URL: z.url().default('https://ssapi.shipstation.com'),
  SHIPSTATION_V2_URL: z.url().default('https://api.shipstation.com'),
  WEB_DIST_DIR: z.string().optional(),
  STORAGE_DIR: z.string().optional(),
  MAX_UPLOAD_MB: z.coerce.number().int().min(1).max(2048).default(200),
  STORAGE_QUOTA_MB: z.coerce.number().int().min(1).default(5120),
  MAX_BUILD_VOLUME_MM: z
    .string()
    .default('400,400,450')
    .transform((value, ctx) => {
      const parts = value.split(/[,x×]/).map((part) => Number(part.trim()));
      if (parts.length !== 3 || !parts.every((n) => Number.isFinite(n) && n >= 10 && n <= 10_000)) {
        ctx.addIssue({ code: 'custom', message: 'MAX_BUILD_VOLUME_MM must be three sizes in mm between 10 and 10000, e.g. 400,400,450' });
        return z.NEVER;
      }
      return parts as [number, number, number];
    }),
  MODEL_WORKERS: z.coerce.number().int().min(1).max(16).optional(),
  MODEL_JOB_CPU_S: z.coerce.number().min(0.1).max(600).default(30),
  MODEL_WORKER_HEAP_MB: z.coerce.number().int().min(64).max(16_384).default(1024),
  MODEL_QUEUE_PER_SELLER: z.coerce.number().int().min(1).max(1000).default(20),
  SLICING: z.enum(['auto', 'off']).default('auto'),
  PRUSA_SLICER_PATH: z.string().min(1).optional(),
  SLICER_CPU_LIMIT_S: z.coerce.number().int().min(1).max(3600).default(120),
  SLICER_MEMORY_LIMIT_MB: z.coerce.number().int().min(256).max(65_536).default(2048),
  // Below the slicing queues' 15-minute expiry, so a run is ended by us before pg-boss gives its job up.
  SLICER_TIMEOUT_S: z.coerce.number().int().min(1).max(840).default(600),
  RUN_JOBS_IN_PROCESS: z.enum(['true', 'false']).default('true'),
  S3_BUCKET: z.string().min(3).optional(),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: booleanFlag,
  S3_PREFIX: z.string().optional(),
  ETSY_CLIENT_ID: z.string().min(1).optional(),
  ETSY_SHARED_SECRET: z.string().min(1).optional(),
  WOOCOMMERCE_ENABLED: z.enum(['true', 'false']).default('true'),
  WOOCOMMERCE_APP_NAME: z.string().min(1).max(100).default('Layerline'),
  EBAY_CLIENT_ID: z.string().min(1).optional(),
  EBAY_CLIENT_SECRET: z.string().min(1).optional(),
  EBAY_RU_NAME: z.string().min(1).optional(),
  EBAY_VERIFICATION_TOKEN: z.string().min(32, 'EBAY_VERIFICATION_TOKEN must be 32 to 80 characters').max(80).optional(),
  EBAY_ENVIRONMENT: z.enum(['production', 'sandbox']).default('production'),
  AMAZON_SP_APP_ID: z.string().min(1).optional(),
  AMAZON_LWA_CLIENT_ID: z.string().min(1).optional(),
  AMAZON_LWA_CLIENT_SECRET: z.string().min(1).optional(),
  AMAZON_SP_REGION: z.enum(['na', 'eu', 'fe']).default('na'),
  AMAZON_MARKETPLACE_IDS: z.string().default('ATVPDKIKX0DER'),
  AMAZON_SP_DRAFT: z.enum(['true', 'false']).default('false'),
  WALMART_ENABLED: z.enum(['true', 'false']).default('false'),
  WALMART_CHANNEL_TYPE: z.string().min(1).optional(),
  WALMART_API_URL: z.url().default('https://marketplace.walmartapis.com'),
  TIKTOK_APP_KEY: z.string().min(1).optional(),
  TIKTOK_APP_SECRET: z.string().min(1).optional(),
  TIKTOK_SERVICE_ID: z.string().min(1).optional(),
  SHOPIFY_API_KEY: z.string().min(1).optional(),
  SHOPIFY_API_SECRET: z.string().min(1).optional(),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'SMTP_URL must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).optional(),
  EMAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  EMAIL_RETRY_DELAY_S: z.coerce.number().min(0.05).max(86_400).default(60),
  NOTIFICATIONS_TIMER_S: z.coerce.number().min(1).max(86_400).default(600),
  DISCORD_WEBHOOK_URL: z
    .string()
    .regex(DISCORD_WEBHOOK_URL, 'DISCORD_WEBHOOK_URL must be a Discord webhook URL: https://discord.com/api/webhooks/<id>/<token>')
    .optional(),
  /** Tests only: where Discord's API is (a local contract fake). */
  DISCORD_API_URL: z.url().optional(),
  SHOPIFY_SCOPES: z.string().default('read_products,read_orders,write_fulfillments,read_fulfillments,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders,write_shipping'),
});

export interface Config {
  readonly mode: 'development' | 'test' | 'production';
  /** HOST, or by default 127.0.0.1 (this machine only) outside production and 0.0.0.0 in production. */
  readonly host: string;
  readonly port: number;
  /** The origin the browser uses; cookies, CSRF origin checks and links are derived from it. */
  readonly publicUrl: string | undefined;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly appSecret: string;
  readonly adminEmails: readonly string[];
  readonly seedDemoData: boolean;
  /** New accounts start as beta testers (shop connections are beta-only): on a local install by default. */
  readonly newUsersBeta: boolean;
  readonly trustProxyHops: number;
  readonly logLevel: string;
  readonly sentryDsn: string | null;
  readonly analyticsKey: string | null;
  readonly stripePublishableKey: string | null;
  /**
   * Payments (issue 13): Stripe with a secret key (and the webhook signing secret), else the built-in
   * sandbox provider (test cards, no money moves). `chargeOrders`: whether an order is charged when it
   * is released to production (by default: on with Stripe keys or outside production; off in tests,
   * where the suites about payments turn it on).
   */
  readonly payments: {
    readonly stripe: { secretKey: string; webhookSecret: string | null; apiUrl: string | null } | null;
    readonly chargeOrders: boolean;
    /**
     * Whether POST /api/payments/webhook exists: with Stripe keys, or outside production (the sandbox
     * signs its webhooks with a secret written in the source, so production without keys answers 404).
     */
    readonly webhooks: boolean;
  };
  /**
   * Affiliates (issue 13; docs/affiliates.md): the share of a referred seller's fulfilment revenue
   * (percent), for how many months after their sign-up, and the days after delivery before it may be paid.
   */
  readonly affiliates: { readonly sharePercent: number; readonly periodMonths: number; readonly holdDays: number };
  /** Rate limits on sign-in and sign-up; always on outside tests, where suites turn them on per case. */
  readonly authRateLimit: boolean;
  /** Order API webhooks to http:// and local/private addresses (a test receiver); off by default, refused in production. */
  readonly allowLocalWebhookReceivers: boolean;
  /** Printer connections may reach this machine (127/8, ::1): an OctoPrint on the same host; off by default (docs/printers.md). */
  readonly printerAllowLoopback: boolean;
  /**
   * The print farm's rhythm: how often printers are polled and jobs dispatched, and the autopilot
   * (FARM_AUTOPILOT: on with the demo data, off by default in production) that confirms beds, spools,
   * QC and packing by itself after `delayMs`, so the whole chain runs with no clicks.
   */
  readonly farm: {
    readonly tickMs: number;
    readonly autopilot: boolean;
    readonly autopilotDelayMs: number;
    /** FARM_PARTS_PER_PLATE: at most this many parts on one plate (issue 22); 1 prints each alone. */
    readonly partsPerPlate: number;
  };
  /**
   * Shipping (issue 12; docs/shipping.md): the built-in sandbox carrier (SHIPPING_SANDBOX: on unless
   * production) and how fast its parcels travel (SANDBOX_CARRIER_DAY_S: a day is 10 s with the demo
   * data, a real day otherwise), labels bought as soon as an order is packed (SHIPPING_AUTO_BUY), how
   * often labels in flight are tracked (TRACKING_POLL_S), and the providers' addresses (overridden in
   * tests to point at contract mocks) and Shippo's OAuth app.
   */
  readonly shipping: {
    readonly sandbox: boolean;
    readonly sandboxDaySeconds: number;
    readonly autoBuy: boolean;
    readonly trackingPollMs: number;
    readonly shippo: { readonly apiUrl: string; readonly oauthUrl: string; readonly clientId: string | undefined; readonly clientSecret: string | undefined };
    readonly shipStation: { readonly v1Url: string; readonly v2Url: string };
  };
  readonly webDistDir: string;
  /** Local-disk file storage root (designs, thumbnails, G-code). */
  readonly storageDir: string;
  readonly maxUploadBytes: number;
  /** Per-seller storage quota; an upload past it is refused with 402. */
  readonly storageQuotaBytes: number;
  /** Model work: the largest build volume of the farm (until printers are listed) and the worker pool's budgets. */
  readonly models: {
    readonly maxBuildVolumeMm: readonly [number, number, number];
    readonly workers: number;
    /** CPU time one job's thread may use (not wall-clock time: a loaded machine does not refuse models). */
    readonly jobCpuMs: number;
    readonly workerHeapMb: number;
    readonly maxQueuedPerSeller: number;
  };
  /** auto: slice with PrusaSlicer when it is installed; off: geometry estimates only. */
  readonly slicing: 'auto' | 'off';
  readonly prusaSlicerPath: string | undefined;
  /**
   * Each PrusaSlicer run's limits: CPU time and address space are set by the kernel (setrlimit via
   * prlimit); the wall clock is a safety net for a run that hangs without using CPU.
   */
  readonly slicerLimits: { readonly cpuSeconds: number; readonly memoryBytes: number; readonly timeoutMs: number };
  /** Whether the web process also works the job queue (otherwise run `npm run worker`). */
  readonly runJobsInProcess: boolean;
  /** S3-compatible file storage; when absent, files live on local disk under storageDir. */
  readonly s3:
    | { endpoint: string; region: string; bucket: string; accessKeyId: string; secretAccessKey: string; forcePathStyle: boolean; prefix: string | undefined }
    | undefined;
  /** Marketplace apps; a marketplace without its credentials is shown as not configured. */
  /** Outgoing mail (sign-in links, alerts) through this SMTP server; without it, mail goes to DATA_DIR/outbox. */
  readonly smtpUrl: string | undefined;
  /** The From of outgoing mail. */
  readonly mailFrom: string;
  /**
   * Notification emails (issue 13; docs/notifications.md): attempts per message through SMTP and the
   * first retry's delay (doubling after), and how often the timer sweeps for lost sends and checks
   * whether last week's summaries are out.
   */
  readonly email: { readonly maxAttempts: number; readonly retryDelayMs: number; readonly timerMs: number };
  /**
   * The farm's Discord channel (DISCORD_WEBHOOK_URL; docs/discord.md): its webhook's id and token, and
   * the API they are posted to (Discord's v10 API on the URL's host; a local fake in tests). Null: the
   * farm's alerts are only written to the log.
   */
  readonly discord: { readonly webhookId: string; readonly webhookToken: string; readonly apiUrl: string } | null;
  readonly marketplaces: {
    readonly etsy: { clientId: string; sharedSecret: string | undefined } | undefined;
    readonly shopify: { apiKey: string; apiSecret: string; scopes: string } | undefined;
    /** Always available unless WOOCOMMERCE_ENABLED=false: WooCommerce has no app credentials (each store's keys are the seller's). */
    readonly woocommerce: { appName: string } | undefined;
    readonly ebay: { clientId: string; clientSecret: string; ruName: string; verificationToken: string | undefined; environment: 'production' | 'sandbox' } | undefined;
    readonly amazon: { appId: string; clientId: string; clientSecret: string; region: 'na' | 'eu' | 'fe'; marketplaceIds: string[]; draft: boolean } | undefined;
    /** Sellers paste their own Walmart client credentials; the operator turns Walmart on (and sets the solution provider's channel type). */
    readonly walmart: { channelType: string | undefined; apiUrl: string } | undefined;
    readonly tiktok: { appKey: string; appSecret: string; serviceId: string } | undefined;
  };
}

/**
 * A fixed development secret keeps sessions across restarts locally; production must bring its own,
 * and refuses this one (it is public: it is in the source).
 */
export const DEVELOPMENT_SECRET = 'layerline-development-secret-do-not-use-in-production';

/** Where a process listens when HOST is not set: this machine only, except in production (see docs/security.md). */
export const DEFAULT_HOST = { production: '0.0.0.0', local: '127.0.0.1' } as const;

/**
 * Secrets written in the source code (and so public): the development APP_SECRET, the sandbox's
 * webhook signing secret, and the tests' fixtures. In production no variable that signs or verifies
 * anything may hold one of them, so no request signed with one is ever accepted.
 * `published-secrets.test.ts` fails when a hard-coded secret of the repository is not listed.
 */
export const PUBLISHED_SECRETS: ReadonlySet<string> = new Set([DEVELOPMENT_SECRET, SANDBOX_WEBHOOK_SECRET, ...FIXTURE_SECRETS]);

/** The variables that sign, or verify the signature of, what reaches us; checked against PUBLISHED_SECRETS in production. */
const SIGNING_SECRET_VARIABLES = [
  'APP_SECRET',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'SHOPIFY_API_SECRET',
  'TIKTOK_APP_SECRET',
  'EBAY_CLIENT_SECRET',
  'EBAY_VERIFICATION_TOKEN',
  'ETSY_SHARED_SECRET',
  'AMAZON_LWA_CLIENT_SECRET',
  'SHIPPO_CLIENT_SECRET',
] as const;

/**
 * The least a production APP_SECRET must score against a guesser who knows how people make
 * "random" strings (platform/secret-strength.ts). 32 random hex digits carry 128 bits and, with
 * their accidental words and runs, scored no less than 102 in 60,000 tries; keyboard walks,
 * repeated words and dictionary phrases score 10–70.
 */
export const APP_SECRET_MIN_BITS = 80;

/**
 * Why a production APP_SECRET is refused, or null when it will do. The secret signs sessions and is
 * the root of every key that seals stored secrets, so it must be long and unguessable: at least 32
 * bytes, not a secret from the source, and at least APP_SECRET_MIN_BITS by the pattern-aware
 * estimate. (The first rules — distinct characters, observed character entropy, runs — let keyboard
 * walks and repeated words through: `qwertyuiopasdfghjklzxcvbnm123456` has 32 distinct characters.)
 * `openssl rand -hex 32` always passes.
 */
export function appSecretProblem(secret: string): string | null {
  if (Buffer.byteLength(secret, 'utf8') < 32) return 'must be at least 32 bytes long';
  if (secret === DEVELOPMENT_SECRET) return 'is the public development secret from the source code';
  if (PUBLISHED_SECRETS.has(secret)) return 'is a secret from the source code';
  const { bits, pieces } = secretStrength(secret);
  if (bits >= APP_SECRET_MIN_BITS) return null;
  const found = pieces.map((piece) => `${piece.kind} "${piece.text.length > 24 ? `${piece.text.slice(0, 24)}…` : piece.text}"`);
  return `is not random enough: about ${Math.floor(bits)} bits to guess, ${APP_SECRET_MIN_BITS} needed${found.length > 0 ? ` (found ${found.join(', ')})` : ''}`;
}

/** Whether HOST lets only this machine in (127.0.0.0/8, ::1, localhost); anything else reaches a network. */
export function listensOnLoopbackOnly(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(h);
}

export class ConfigError extends Error {}

function discordOf(webhookUrl: string | undefined, apiUrl: string | undefined): Config['discord'] {
  const match = webhookUrl ? DISCORD_WEBHOOK_URL.exec(webhookUrl) : null;
  if (!match) return null;
  return { webhookId: match[2]!, webhookToken: match[3]!, apiUrl: (apiUrl ?? `https://${match[1]}/api/v10`).replace(/\/$/, '') };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  if (production && !e.APP_SECRET) {
    throw new ConfigError('Invalid configuration:\n  APP_SECRET: required in production (32+ random characters)');
  }
  const secretProblem = production && e.APP_SECRET ? appSecretProblem(e.APP_SECRET) : null;
  if (secretProblem) {
    throw new ConfigError(`Invalid configuration:\n  APP_SECRET: ${secretProblem}; generate one with \`openssl rand -hex 32\``);
  }
  const published = production ? SIGNING_SECRET_VARIABLES.filter((name) => PUBLISHED_SECRETS.has(e[name] ?? '')) : [];
  if (published.length > 0) {
    throw new ConfigError(
      `Invalid configuration:\n${published.map((name) => `  ${name}: is a secret written in Layerline's source code (public); use the one your provider gave you`).join('\n')}`,
    );
  }
  if (production && e.ALLOW_LOCAL_WEBHOOK_RECEIVERS) {
    throw new ConfigError('Invalid configuration:\n  ALLOW_LOCAL_WEBHOOK_RECEIVERS: not allowed in production (webhooks would reach internal addresses)');
  }
  if (production && e.STRIPE_SECRET_KEY && !(e.STRIPE_WEBHOOK_SECRET && e.STRIPE_PUBLISHABLE_KEY)) {
    throw new ConfigError('Invalid configuration:\n  STRIPE_WEBHOOK_SECRET and STRIPE_PUBLISHABLE_KEY: required with STRIPE_SECRET_KEY in production');
  }
  if (production && e.PAYMENTS_CHARGE_ORDERS === 'true' && !e.STRIPE_SECRET_KEY) {
    throw new ConfigError('Invalid configuration:\n  PAYMENTS_CHARGE_ORDERS: charging orders in production needs STRIPE_SECRET_KEY (the sandbox moves no money)');
  }
  if (e.STRIPE_API_URL && production) {
    throw new ConfigError('Invalid configuration:\n  STRIPE_API_URL: for tests only');
  }
  if (e.DISCORD_API_URL && production) {
    throw new ConfigError('Invalid configuration:\n  DISCORD_API_URL: for tests only');
  }
  if (production && !e.PUBLIC_URL) {
    throw new ConfigError('Invalid configuration:\n  PUBLIC_URL: required in production (e.g. https://print.example.com)');
  }
  if (production && !e.PUBLIC_URL?.startsWith('https://')) {
    throw new ConfigError(
      'Invalid configuration:\n  PUBLIC_URL: must be https:// in production (session cookies are marked Secure only over https); put a TLS-terminating proxy in front',
    );
  }
  if (e.S3_BUCKET && !(e.S3_ENDPOINT && e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  S3_BUCKET: also set S3_ENDPOINT, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  }
  const seedDemoData = e.SEED_DEMO_DATA === 'auto' ? !production : e.SEED_DEMO_DATA === 'true' && !production;
  return {
    mode: e.NODE_ENV,
    host: e.HOST || (production ? DEFAULT_HOST.production : DEFAULT_HOST.local),
    port: e.PORT,
    publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    appSecret: e.APP_SECRET ?? DEVELOPMENT_SECRET,
    adminEmails: e.ADMIN_EMAILS,
    seedDemoData,
    newUsersBeta: e.NEW_USERS_BETA === 'auto' ? e.NODE_ENV === 'development' : e.NEW_USERS_BETA === 'true',
    trustProxyHops: e.TRUST_PROXY_HOPS,
    logLevel: e.LOG_LEVEL,
    sentryDsn: e.SENTRY_DSN ?? null,
    analyticsKey: e.ANALYTICS_KEY ?? null,
    stripePublishableKey: e.STRIPE_PUBLISHABLE_KEY ?? null,
    payments: {
      stripe: e.STRIPE_SECRET_KEY
        ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? null, apiUrl: e.STRIPE_API_URL ?? null }
        : null,
      // Production without Stripe keys charges nothing (the sandbox moves no money); tests opt in.
      chargeOrders:
        e.PAYMENTS_CHARGE_ORDERS === 'auto' ? (production ? Boolean(e.STRIPE_SECRET_KEY) : e.NODE_ENV !== 'test') : e.PAYMENTS_CHARGE_ORDERS === 'true',
      webhooks: Boolean(e.STRIPE_SECRET_KEY) || !production,
    },
    affiliates: { sharePercent: e.AFFILIATE_SHARE_PERCENT, periodMonths: e.AFFILIATE_PERIOD_MONTHS, holdDays: e.AFFILIATE_HOLD_DAYS },
    authRateLimit: e.NODE_ENV === 'test' ? e.AUTH_RATE_LIMIT : true,
    allowLocalWebhookReceivers: e.ALLOW_LOCAL_WEBHOOK_RECEIVERS,
    printerAllowLoopback: e.PRINTER_ALLOW_LOOPBACK,
    farm: {
      tickMs: Math.round(e.FARM_TICK_S * 1000),
      // auto: with the demo data of a local install (tests turn it on themselves).
      autopilot: e.FARM_AUTOPILOT === 'auto' ? seedDemoData && e.NODE_ENV !== 'test' : e.FARM_AUTOPILOT === 'true',
      autopilotDelayMs: Math.round(e.FARM_AUTOPILOT_DELAY_S * 1000),
      // Unset: plates of up to 12 parts with the demo data of a local install, one part per plate otherwise.
      partsPerPlate: e.FARM_PARTS_PER_PLATE ?? (seedDemoData && e.NODE_ENV !== 'test' ? 12 : 1),
    },
    shipping: {
      sandbox: e.SHIPPING_SANDBOX === 'auto' ? !production : e.SHIPPING_SANDBOX === 'true',
      sandboxDaySeconds: e.SANDBOX_CARRIER_DAY_S ?? (seedDemoData && e.NODE_ENV !== 'test' ? 10 : 86_400),
      // auto: on, except in tests (which turn it on themselves, like the farm autopilot).
      autoBuy: e.SHIPPING_AUTO_BUY === 'auto' ? e.NODE_ENV !== 'test' : e.SHIPPING_AUTO_BUY === 'true',
      trackingPollMs: Math.round((e.TRACKING_POLL_S ?? (seedDemoData && e.NODE_ENV !== 'test' ? 5 : 300)) * 1000),
      shippo: {
        apiUrl: e.SHIPPO_API_URL.replace(/\/$/, ''),
        oauthUrl: e.SHIPPO_OAUTH_URL.replace(/\/$/, ''),
        clientId: e.SHIPPO_CLIENT_ID,
        clientSecret: e.SHIPPO_CLIENT_SECRET,
      },
      shipStation: { v1Url: e.SHIPSTATION_V1_URL.replace(/\/$/, ''), v2Url: e.SHIPSTATION_V2_URL.replace(/\/$/, '') },
    },
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? new URL('../../web/dist', import.meta.url).pathname),
    storageDir: path.resolve(e.STORAGE_DIR ?? path.join(e.DATA_DIR, 'files')),
    maxUploadBytes: e.MAX_UPLOAD_MB * 1024 * 1024,
    storageQuotaBytes: e.STORAGE_QUOTA_MB * 1024 * 1024,
    models: {
      maxBuildVolumeMm: e.MAX_BUILD_VOLUME_MM,
      workers: e.MODEL_WORKERS ?? Math.min(2, os.availableParallelism()),
      jobCpuMs: Math.round(e.MODEL_JOB_CPU_S * 1000),
      workerHeapMb: e.MODEL_WORKER_HEAP_MB,
      maxQueuedPerSeller: e.MODEL_QUEUE_PER_SELLER,
    },
    slicing: e.SLICING,
    prusaSlicerPath: e.PRUSA_SLICER_PATH,
    slicerLimits: { cpuSeconds: e.SLICER_CPU_LIMIT_S, memoryBytes: e.SLICER_MEMORY_LIMIT_MB * 1024 * 1024, timeoutMs: e.SLICER_TIMEOUT_S * 1000 },
    runJobsInProcess: e.RUN_JOBS_IN_PROCESS === 'true',
    s3:
      e.S3_BUCKET && e.S3_ENDPOINT && e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? {
            endpoint: e.S3_ENDPOINT,
            region: e.S3_REGION,
            bucket: e.S3_BUCKET,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
            prefix: e.S3_PREFIX,
          }
        : undefined,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `Layerline <no-reply@${e.PUBLIC_URL ? new URL(e.PUBLIC_URL).hostname : 'localhost'}>`,
    email: { maxAttempts: e.EMAIL_MAX_ATTEMPTS, retryDelayMs: Math.round(e.EMAIL_RETRY_DELAY_S * 1000), timerMs: Math.round(e.NOTIFICATIONS_TIMER_S * 1000) },
    discord: discordOf(e.DISCORD_WEBHOOK_URL, e.DISCORD_API_URL),
    marketplaces: {
      etsy: e.ETSY_CLIENT_ID ? { clientId: e.ETSY_CLIENT_ID, sharedSecret: e.ETSY_SHARED_SECRET } : undefined,
      shopify:
        e.SHOPIFY_API_KEY && e.SHOPIFY_API_SECRET
          ? { apiKey: e.SHOPIFY_API_KEY, apiSecret: e.SHOPIFY_API_SECRET, scopes: e.SHOPIFY_SCOPES }
          : undefined,
      woocommerce: e.WOOCOMMERCE_ENABLED === 'true' ? { appName: e.WOOCOMMERCE_APP_NAME } : undefined,
      ebay:
        e.EBAY_CLIENT_ID && e.EBAY_CLIENT_SECRET && e.EBAY_RU_NAME
          ? { clientId: e.EBAY_CLIENT_ID, clientSecret: e.EBAY_CLIENT_SECRET, ruName: e.EBAY_RU_NAME, verificationToken: e.EBAY_VERIFICATION_TOKEN, environment: e.EBAY_ENVIRONMENT }
          : undefined,
      amazon:
        e.AMAZON_SP_APP_ID && e.AMAZON_LWA_CLIENT_ID && e.AMAZON_LWA_CLIENT_SECRET
          ? {
              appId: e.AMAZON_SP_APP_ID,
              clientId: e.AMAZON_LWA_CLIENT_ID,
              clientSecret: e.AMAZON_LWA_CLIENT_SECRET,
              region: e.AMAZON_SP_REGION,
              marketplaceIds: e.AMAZON_MARKETPLACE_IDS.split(',').map((id) => id.trim()).filter(Boolean),
              draft: e.AMAZON_SP_DRAFT === 'true',
            }
          : undefined,
      walmart: e.WALMART_ENABLED === 'true' ? { channelType: e.WALMART_CHANNEL_TYPE, apiUrl: e.WALMART_API_URL } : undefined,
      tiktok:
        e.TIKTOK_APP_KEY && e.TIKTOK_APP_SECRET && e.TIKTOK_SERVICE_ID
          ? { appKey: e.TIKTOK_APP_KEY, appSecret: e.TIKTOK_APP_SECRET, serviceId: e.TIKTOK_SERVICE_ID }
          : undefined,
    },
  };
}
