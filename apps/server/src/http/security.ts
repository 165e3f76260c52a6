import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import { AppError } from '../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SecurityOptions {
  readonly publicUrl: string | undefined;
  readonly connectSources: readonly string[];
  readonly apiRateLimitPerMinute: number;
  /** TRUST_PROXY_HOPS: when set, the scheme a request arrived over is the proxy's X-Forwarded-Proto. */
  readonly trustProxyHops?: number;
  /** Stripe keys are set: the card form and 3-D Secure run Stripe.js, its frames and its API (docs/payments.md). */
  readonly stripe?: boolean;
}

const HSTS = 'max-age=31536000; includeSubDomains';

/** What Stripe.js needs (Stripe's security guide, without the address element's Google Maps). */
const STRIPE_SOURCES = {
  script: ['https://js.stripe.com', 'https://*.js.stripe.com'],
  frame: ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
  connect: ['https://api.stripe.com'],
};

/** Security headers, per-IP rate limits, CSRF refusal and no-store on the API. */
export async function registerSecurity(app: FastifyInstance, options: SecurityOptions): Promise<void> {
  const https = options.publicUrl?.startsWith('https://') ?? false;
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'", ...(options.stripe ? STRIPE_SOURCES.script : [])],
        ...(options.stripe ? { 'frame-src': STRIPE_SOURCES.frame } : {}),
        // Emotion (MUI) injects <style> elements at run time.
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'media-src': ["'self'", 'blob:'],
        'connect-src': ["'self'", ...options.connectSources, ...(options.stripe ? STRIPE_SOURCES.connect : [])],
        'worker-src': ["'self'", 'blob:'],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'frame-ancestors': ["'none'"],
        'form-action': ["'self'"],
        // Upgrading would break a plain-http local install; only ask for it when served over https.
        'upgrade-insecure-requests': https ? [] : null,
      },
    },
    // Sent per request below, only over https (sendsHsts).
    strictTransportSecurity: false,
    // Agrees with frame-ancestors 'none' for browsers that know only X-Frame-Options.
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
  });

  await app.register(rateLimit, {
    global: true,
    max: options.apiRateLimitPerMinute,
    timeWindow: '1 minute',
    allowList: (request) => !request.url.startsWith('/api/'),
    errorResponseBuilder: (_request, context) =>
      new AppError('rate-limited', 'Too many requests. Please slow down and try again shortly.', {
        retryAfterSeconds: Math.ceil(context.ttl / 1000),
      }),
  });
  // Every 429 says when to come back in the standard header (RFC 9110 Retry-After): ours set it
  // (errors.ts → http/app.ts); better-auth's limiter on /api/auth names it X-Retry-After.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode !== 429 || reply.hasHeader('retry-after')) return payload;
    const legacy = reply.getHeader('x-retry-after');
    if (legacy !== undefined) {
      reply.header('Retry-After', String(legacy));
      reply.removeHeader('x-retry-after');
    }
    return payload;
  });

  app.addHook('onRequest', async (request, reply) => {
    if (sendsHsts(request, https, options.trustProxyHops ?? 0)) reply.header('Strict-Transport-Security', HSTS);
    if (request.url.startsWith('/api/')) reply.header('Cache-Control', 'no-store');
    refuseCrossSiteRequest(request, options.publicUrl);
  });
}

/**
 * HSTS only for a request that reached us over https, never over plain http (HDR-1). The scheme is the
 * socket's, or the X-Forwarded-Proto of a trusted proxy (TRUST_PROXY_HOPS); with no trusted proxy to
 * ask, an https PUBLIC_URL is the operator's word that browsers reach us through TLS (a proxy that
 * does not say so). A local install over http, or a spoofed X-Forwarded-Proto, gets none.
 */
export function sendsHsts(request: FastifyRequest, publicUrlIsHttps: boolean, trustProxyHops: number): boolean {
  if (request.protocol === 'https') return true;
  if (trustProxyHops > 0 && request.headers['x-forwarded-proto'] !== undefined) return false;
  return publicUrlIsHttps;
}

/**
 * CSRF defence for cookie sessions (OWASP: Fetch Metadata with an Origin fallback). A request
 * that carries no cookie cannot ride on a session, so bearer-token clients are not affected.
 */
export function refuseCrossSiteRequest(request: FastifyRequest, publicUrl: string | undefined): void {
  if (SAFE_METHODS.has(request.method) || !request.headers.cookie) return;
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string') {
    if (fetchSite === 'same-origin' || fetchSite === 'none') return;
    throw new AppError('forbidden', 'Cross-site request refused');
  }
  const origin = request.headers.origin;
  if (typeof origin === 'string') {
    if (origin === expectedOrigin(request, publicUrl)) return;
    throw new AppError('forbidden', 'Cross-site request refused');
  }
  // No browser metadata at all: only a JSON body proves it is not a plain HTML form post.
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('application/json') && request.headers['content-length'] !== '0') {
    throw new AppError('forbidden', 'Cross-site request refused');
  }
}

function expectedOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  return `${request.protocol}://${request.host}`;
}
