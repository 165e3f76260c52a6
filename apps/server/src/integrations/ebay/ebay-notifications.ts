import { createHash, verify as verifySignature } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MarketplaceRejectedError } from '../../modules/shops/connector.ts';
import type { EbayClient } from './ebay-client.ts';

/**
 * eBay's Marketplace Account Deletion notifications, which eBay requires every app that keeps eBay
 * data to receive (https://developer.ebay.com/marketplace-account-deletion):
 * - GET ?challenge_code=… proves we own the endpoint: {"challengeResponse": hex SHA-256 of
 *   challengeCode + verificationToken + endpoint URL};
 * - POST delivers a deletion, signed in the X-EBAY-SIGNATURE header (base64 JSON {alg, kid,
 *   signature, digest}): an ECDSA/SHA-1 signature checked with the public key the Notification API
 *   returns for `kid` (getPublicKey), as eBay's own event-notification SDKs do.
 */

const MAX_NOTIFICATION_BYTES = 256 * 1024;
const PUBLIC_KEY_CACHE_MS = 60 * 60 * 1000;

export const ebayAccountDeletionChallenge = (
  challengeCode: string,
  verificationToken: string,
  endpointUrl: string,
): string =>
  createHash('sha256').update(challengeCode).update(verificationToken).update(endpointUrl).digest('hex');

const signatureHeader = z.object({
  alg: z.string(),
  kid: z.string().regex(/^[A-Za-z0-9-]{1,100}$/),
  signature: z.string().min(1),
  digest: z.string(),
});

export const ebayPublicKey = z.object({
  key: z.string().min(1),
  algorithm: z.string().nullish(),
  digest: z.string().nullish(),
});

const deletionNotification = z.object({
  metadata: z.object({ topic: z.string() }),
  notification: z.object({
    notificationId: z.string().nullish(),
    data: z.object({ userId: z.string().min(1), username: z.string().nullish() }),
  }),
});

/** eBay returns the PEM on one line ("-----BEGIN PUBLIC KEY-----MFkw…-----END PUBLIC KEY-----"). */
const toPem = (key: string): string =>
  key
    .replace(/-----BEGIN PUBLIC KEY-----\s*/, '-----BEGIN PUBLIC KEY-----\n')
    .replace(/\s*-----END PUBLIC KEY-----/, '\n-----END PUBLIC KEY-----');

export interface EbaySignatureVerifier {
  /**
   * True when the header is eBay's ECDSA signature of this body. Throws (MarketplaceUnavailableError)
   * only when eBay's public key could not be fetched, so the delivery can be answered 5xx and retried.
   */
  verify(rawBody: Buffer, header: string | undefined): Promise<boolean>;
}

/** Fetches eBay's public keys through the client (an application token) and caches them by key id. */
export const createEbaySignatureVerifier = (
  client: EbayClient,
  now: () => number = Date.now,
): EbaySignatureVerifier => {
  const keys = new Map<string, { pem: string; fetchedAt: number }>();

  const publicKey = async (kid: string): Promise<string> => {
    const cached = keys.get(kid);
    if (cached && now() - cached.fetchedAt < PUBLIC_KEY_CACHE_MS) return cached.pem;
    const { body } = await client.call(ebayPublicKey, {
      api: 'notification',
      operation: 'getPublicKey',
      method: 'GET',
      path: `/public_key/${encodeURIComponent(kid)}`,
      accessToken: await client.applicationToken(),
      rateLimitKey: 'notification',
    });
    const pem = toPem(body.key);
    keys.set(kid, { pem, fetchedAt: now() });
    return pem;
  };

  return {
    async verify(rawBody, header) {
      if (!header) return false;
      let parsed: z.infer<typeof signatureHeader>;
      try {
        const decoded = signatureHeader.safeParse(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
        if (!decoded.success) return false;
        parsed = decoded.data;
      } catch {
        return false;
      }
      if (parsed.alg.toLowerCase() !== 'ecdsa' || parsed.digest.toUpperCase() !== 'SHA1') return false;
      let pem: string;
      try {
        pem = await publicKey(parsed.kid);
      } catch (error) {
        // eBay refusing the key id (404: unknown key) means the signature is not eBay's.
        if (error instanceof MarketplaceRejectedError && (error.status === 400 || error.status === 404))
          return false;
        throw error;
      }
      const signature = Buffer.from(parsed.signature, 'base64');
      try {
        if (verifySignature('sha1', rawBody, pem, signature)) return true;
        // eBay's SDKs verify JSON.stringify of the parsed message; a body sent with other whitespace
        // is checked in that form too (still the same message, signed by eBay's key).
        const compact = Buffer.from(JSON.stringify(JSON.parse(rawBody.toString('utf8'))));
        return !compact.equals(rawBody) && verifySignature('sha1', compact, pem, signature);
      } catch {
        return false;
      }
    },
  };
};

export interface EbayNotificationDeps {
  /** EBAY_VERIFICATION_TOKEN: the token entered with the endpoint in eBay's developer portal. */
  readonly verificationToken: string;
  /**
   * The endpoint URL exactly as entered in eBay's portal (PUBLIC_URL + /api/webhooks/ebay/account-deletion);
   * without PUBLIC_URL, this request's own origin + path.
   */
  readonly endpointUrl: string | undefined;
  readonly verifier: EbaySignatureVerifier;
  /** The eBay user (the id our eBay shops are keyed by) asked for their data to be deleted. */
  readonly onAccountDeleted: (ebayUserId: string) => Promise<void>;
}

export const EBAY_ACCOUNT_DELETION_PATH = '/api/webhooks/ebay/account-deletion';

/**
 * GET and POST /api/webhooks/ebay/account-deletion. No session: the challenge and the signature
 * are the authentication. JSON is kept as raw bytes in this scope (the signature covers them).
 */
export async function registerEbayNotificationRoutes(
  app: FastifyInstance,
  deps: EbayNotificationDeps,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: MAX_NOTIFICATION_BYTES },
      (_request, body, done) => done(null, body),
    );

    scope.get(
      EBAY_ACCOUNT_DELETION_PATH,
      {
        schema: {
          tags: ['webhooks'],
          summary:
            "eBay's endpoint check for account-deletion notifications (challenge_code → challengeResponse)",
        },
      },
      async (request, reply) => {
        const code = (request.query as Record<string, unknown>).challenge_code;
        if (typeof code !== 'string' || code.length === 0 || code.length > 512)
          return reply.status(400).send({ error: 'challenge_code is required' });
        return reply
          .status(200)
          .header('content-type', 'application/json')
          .send({
            challengeResponse: ebayAccountDeletionChallenge(
              code,
              deps.verificationToken,
              deps.endpointUrl ?? `${request.protocol}://${request.host}${EBAY_ACCOUNT_DELETION_PATH}`,
            ),
          });
      },
    );

    scope.post(
      EBAY_ACCOUNT_DELETION_PATH,
      {
        bodyLimit: MAX_NOTIFICATION_BYTES,
        config: { rateLimit: { max: 6000, timeWindow: '1 minute' } },
        schema: {
          tags: ['webhooks'],
          summary:
            'eBay Marketplace Account Deletion notifications, verified by their ECDSA signature (X-EBAY-SIGNATURE)',
        },
      },
      async (request, reply) => {
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = request.headers['x-ebay-signature'];
        // A key that cannot be fetched throws: answered 5xx, so eBay delivers again later.
        if (!(await deps.verifier.verify(rawBody, Array.isArray(header) ? header[0] : header))) {
          request.log.warn(
            { event: 'ebay.account_deletion.bad_signature' },
            'eBay notification with an invalid signature',
          );
          return reply.status(412).send({ error: 'Invalid signature' });
        }
        let payload: unknown;
        try {
          payload = JSON.parse(rawBody.toString('utf8'));
        } catch {
          return reply.status(400).send({ error: 'Body is not JSON' });
        }
        const message = deletionNotification.safeParse(payload);
        if (!message.success || message.data.metadata.topic !== 'MARKETPLACE_ACCOUNT_DELETION') {
          // Signed by eBay but not a deletion we can read: acknowledged, so eBay does not resend it.
          request.log.warn(
            { event: 'ebay.notification.ignored' },
            'eBay notification that is not an account deletion',
          );
          return reply.status(204).send();
        }
        await deps.onAccountDeleted(message.data.notification.data.userId);
        request.log.info(
          {
            event: 'ebay.account_deletion',
            notificationId: message.data.notification.notificationId ?? null,
          },
          'eBay account deletion received',
        );
        return reply.status(204).send();
      },
    );
  });
}
