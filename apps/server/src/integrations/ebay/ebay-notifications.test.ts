import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import { createEbayClient } from './ebay-client.ts';
import {
  createEbaySignatureVerifier,
  EBAY_ACCOUNT_DELETION_PATH,
  ebayAccountDeletionChallenge,
  registerEbayNotificationRoutes,
} from './ebay-notifications.ts';

/**
 * Marketplace Account Deletion: the challenge response (eBay's documented recipe), the signature
 * (the valid and tampered vectors of eBay's own event-notification-nodejs-sdk, test/test.json:
 * message, X-EBAY-SIGNATURE and the public key getPublicKey returned for it), the getPublicKey
 * request against Prism running eBay's Notification OpenAPI
 * (/work/shared/contracts/ebay/commerce_notification_v1_oas3.json), and the Fastify routes.
 */

const SPEC = '/work/shared/contracts/ebay/commerce_notification_v1_oas3.json';

// eBay's SDK test vector (VALID): the message as eBay serialises it, and its signature header.
const SDK_MESSAGE = {
  metadata: { topic: 'MARKETPLACE_ACCOUNT_DELETION', schemaVersion: '1.0', deprecated: false },
  notification: {
    notificationId: '49feeaeb-4982-42d9-a377-9645b8479411_33f7e043-fed8-442b-9d44-791923bd9a6d',
    eventDate: '2021-03-19T20:43:59.462Z',
    publishDate: '2021-03-19T20:43:59.679Z',
    publishAttemptCount: 1,
    data: {
      username: 'test_user',
      userId: 'ma8vp1jySJC',
      eiasToken: 'nY+sHZ2PrBmdj6wVnY+sEZ2PrA2dj6wJnY+gAZGEpwmdj6x9nY+seQ==',
    },
  },
};
const SDK_SIGNATURE =
  'eyJhbGciOiJlY2RzYSIsImtpZCI6Ijk5MzYyNjFhLTdkN2ItNDYyMS1hMGYxLTk2Y2NiNDI4YWY0OSIsInNpZ25hdHVyZSI6Ik1FWUNJUUNmeGZJV3V4bVdjSUJRSjljNS9YN2lHREpxczJSQ0dzQkVhQWppbnlycmZBSWhBSVY2d0djVGlCdVY1S0pVaWYyaG9reXJMK1E5c3NIa2FkK214Mm5FRTI1dyIsImRpZ2VzdCI6IlNIQTEifQ==';
const SDK_KID = '9936261a-7d7b-4621-a0f1-96ccb428af49';
const SDK_PUBLIC_KEY = {
  key: '-----BEGIN PUBLIC KEY-----MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEZhhxXKtR+TOvtDbgTPCkSof02qgBB7IsYOyf76ilExJ/upAa/vKIKheOoCyOpcLmi4t0b4uepb7LLjmMr90FUg==-----END PUBLIC KEY-----',
  algorithm: 'ECDSA',
  digest: 'SHA1',
};
const ENDPOINT = `https://layerline.example${EBAY_ACCOUNT_DELETION_PATH}`;

let prism: PrismMock;
let ebay: Server;
let ebayOrigin: string;
let ebayRequests: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  // A stand-in for eBay's token endpoint (client credentials) and getPublicKey, answering the SDK's key.
  ebay = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      ebayRequests.push({ method: req.method ?? '', path, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (path === '/identity/v1/oauth2/token') {
        res.end(
          JSON.stringify({
            access_token: 'v^1.1#i^1#app',
            expires_in: 7200,
            token_type: 'Application Access Token',
          }),
        );
      } else if (path === `/commerce/notification/v1/public_key/${SDK_KID}`) {
        res.end(JSON.stringify(SDK_PUBLIC_KEY));
      } else {
        res.writeHead(404);
        res.end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => ebay.listen(0, '127.0.0.1', resolve));
  ebayOrigin = `http://127.0.0.1:${(ebay.address() as AddressInfo).port}`;
  prism = await startPrismMock(SPEC);
}, 90_000);

afterAll(async () => {
  await prism?.stop();
  ebay?.closeAllConnections();
  await new Promise<void>((resolve) => ebay?.close(() => resolve()));
});

beforeEach(() => {
  ebayRequests = [];
});

const verifierAgainst = (notification: string, fetchFn?: typeof fetch) =>
  createEbaySignatureVerifier(
    createEbayClient({
      clientId: 'Layerlin-app-PRD-1234',
      clientSecret: 'PRD-secret-5678',
      fetch: fetchFn,
      endpoints: { notification, token: `${ebayOrigin}/identity/v1/oauth2/token` },
      http: { baseDelayMs: 10, maxDelayMs: 50 },
    }),
  );

describe('eBay account deletion: challenge', () => {
  it('challengeResponse is the hex SHA-256 of challengeCode + verificationToken + endpoint', () => {
    const code = 'a8628072-3d33-45ee-9004-bee86830a22d';
    const token = 'layerline-verification-token-0123456789abcdef';
    const expected = createHash('sha256').update(`${code}${token}${ENDPOINT}`).digest('hex');
    expect(ebayAccountDeletionChallenge(code, token, ENDPOINT)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
    // Every input counts (the endpoint must be exactly the one registered with eBay).
    expect(ebayAccountDeletionChallenge(code, token, `${ENDPOINT}/`)).not.toBe(expected);
  });
});

describe('eBay account deletion: signature', () => {
  const body = Buffer.from(JSON.stringify(SDK_MESSAGE));

  it('accepts eBay’s signed message with the key getPublicKey returns (fetched once, then cached)', async () => {
    const verifier = verifierAgainst(`${ebayOrigin}/commerce/notification/v1`);
    expect(await verifier.verify(body, SDK_SIGNATURE)).toBe(true);
    expect(await verifier.verify(body, SDK_SIGNATURE)).toBe(true);
    expect(ebayRequests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /identity/v1/oauth2/token',
      `GET /commerce/notification/v1/public_key/${SDK_KID}`,
    ]);
    expect(Object.fromEntries(new URLSearchParams(ebayRequests[0]!.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'https://api.ebay.com/oauth/api_scope',
    });
    expect(ebayRequests[1]!.headers.authorization).toBe('Bearer v^1.1#i^1#app');
    // The same message with other whitespace is the same signed message.
    expect(await verifier.verify(Buffer.from(JSON.stringify(SDK_MESSAGE, null, 2)), SDK_SIGNATURE)).toBe(
      true,
    );
  });

  it('refuses a tampered message, a missing or garbled header, and another algorithm', async () => {
    const verifier = verifierAgainst(`${ebayOrigin}/commerce/notification/v1`);
    const tampered = structuredClone(SDK_MESSAGE);
    tampered.notification.data.userId = 'someone-else';
    expect(await verifier.verify(Buffer.from(JSON.stringify(tampered)), SDK_SIGNATURE)).toBe(false);
    expect(await verifier.verify(body, undefined)).toBe(false);
    expect(await verifier.verify(body, 'not-base64-json')).toBe(false);
    const header = JSON.parse(Buffer.from(SDK_SIGNATURE, 'base64').toString()) as Record<string, string>;
    const rsa = Buffer.from(JSON.stringify({ ...header, alg: 'rsa' })).toString('base64');
    expect(await verifier.verify(body, rsa)).toBe(false);
    // A key id eBay does not know (getPublicKey 404) is not eBay's signature.
    const unknownKid = Buffer.from(JSON.stringify({ ...header, kid: 'no-such-key' })).toString('base64');
    expect(await verifier.verify(body, unknownKid)).toBe(false);
  });

  it('getPublicKey is a valid request against the Notification OpenAPI (Prism)', async () => {
    const calls: { path: string; status: number; violations: string | null }[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : input);
      if (url.origin === prism.origin)
        calls.push({
          path: url.pathname,
          status: response.status,
          violations: response.headers.get('sl-violations'),
        });
      return response;
    };
    // Prism answers the schema's placeholder key ("string"), which verifies nothing.
    expect(await verifierAgainst(prism.origin, recordingFetch).verify(body, SDK_SIGNATURE)).toBe(false);
    expect(calls).toEqual([{ path: `/public_key/${SDK_KID}`, status: 200, violations: null }]);
    // …and the mock does check the request: no bearer token, 401.
    expect((await fetch(`${prism.origin}/public_key/${SDK_KID}`)).status).toBe(401);
  });
});

describe('eBay account deletion: routes', () => {
  let app: FastifyInstance;
  let deleted: string[] = [];

  beforeAll(async () => {
    app = Fastify();
    await registerEbayNotificationRoutes(app, {
      verificationToken: 'layerline-verification-token-0123456789abcdef',
      endpointUrl: ENDPOINT,
      verifier: verifierAgainst(`${ebayOrigin}/commerce/notification/v1`),
      onAccountDeleted: async (userId) => {
        deleted.push(userId);
      },
    });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
  });

  beforeEach(() => {
    deleted = [];
  });

  it('GET answers the challenge as JSON; no challenge_code is a 400', async () => {
    const ok = await app.inject({
      method: 'GET',
      url: `${EBAY_ACCOUNT_DELETION_PATH}?challenge_code=abc123`,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toContain('application/json');
    expect(ok.json()).toEqual({
      challengeResponse: ebayAccountDeletionChallenge(
        'abc123',
        'layerline-verification-token-0123456789abcdef',
        ENDPOINT,
      ),
    });
    expect((await app.inject({ method: 'GET', url: EBAY_ACCOUNT_DELETION_PATH })).statusCode).toBe(400);
  });

  it('POST: a signed deletion is acknowledged and reported once with the eBay user id; a bad signature is 412', async () => {
    const signed = await app.inject({
      method: 'POST',
      url: EBAY_ACCOUNT_DELETION_PATH,
      headers: { 'content-type': 'application/json', 'x-ebay-signature': SDK_SIGNATURE },
      payload: JSON.stringify(SDK_MESSAGE),
    });
    expect(signed.statusCode).toBe(204);
    expect(deleted).toEqual(['ma8vp1jySJC']);

    const tampered = structuredClone(SDK_MESSAGE);
    tampered.notification.data.userId = 'someone-else';
    const refused = await app.inject({
      method: 'POST',
      url: EBAY_ACCOUNT_DELETION_PATH,
      headers: { 'content-type': 'application/json', 'x-ebay-signature': SDK_SIGNATURE },
      payload: JSON.stringify(tampered),
    });
    expect(refused.statusCode).toBe(412);
    const unsigned = await app.inject({
      method: 'POST',
      url: EBAY_ACCOUNT_DELETION_PATH,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(SDK_MESSAGE),
    });
    expect(unsigned.statusCode).toBe(412);
    expect(deleted).toEqual(['ma8vp1jySJC']);
  });
});
