import { createHash, randomBytes } from 'node:crypto';
import type { FakeAnswer, FakeRequest } from '../http-client/fake-printer-server.ts';

/**
 * How the simulated PrusaLink servers check credentials, each as the real one does
 * (shared/contracts/printers/prusalink.md, section 1):
 * - Buddy firmware: HTTP Digest in the RFC 2069 form (no qop), realm "Printer API", user "maker"
 *   (lib/WUI/wui_api.h L19, nhttp/status_page.h L12). The nonce is 16 hex digits: a random word
 *   chosen once per boot, then the second it was issued; it is valid while the random word matches
 *   and it is younger than the firmware's lifetime, and an invalid nonce answered with the right
 *   digest gets `stale=true` (lib/WUI/nhttp/req_parser.cpp, `nonce_valid` and
 *   `authenticated_status`, L333–347 at 818d812). Lifetime: 300 s since 5.2.0
 *   (src/common/http/types.h L157–160); 5 s, 8 s with a body, up to 5.1.x (v5.1.0 types.h
 *   L151–157, req_parser.cpp L311). Or the X-Api-Key header.
 * - Prusa-Link (MK3): X-Api-Key, a wrong one answered 403 "Bad X-Api-Key."; without it HTTP Digest,
 *   realm "Administrator" (prusa/link/web/lib/auth.py L18–77), nonces living 60 s
 *   (prusa/link/web/lib/core.py L32), an expired one answered `stale=True`. The header's other
 *   fields (qop="auth", algorithm, opaque) are poorwsgi's, not in the notes: not confirmed.
 */
export interface SimulatorAuthOptions {
  readonly firmware: 'buddy' | 'mk3';
  /** Buddy firmware version, "6.3.0": decides the nonce lifetime. */
  readonly buddyVersion: string;
  readonly username: string;
  readonly password: string;
  readonly apiKey: string;
  readonly now: () => number;
}

export interface SimulatorAuth {
  /** null when the request may proceed, else the answer refusing it. */
  refusal(request: FakeRequest): FakeAnswer | null;
  /** A reboot: nonces issued before it are no longer valid. */
  reboot(): void;
}

const BUDDY_USER = 'maker';
const BUDDY_REALM = 'Printer API';
const PRUSA_LINK_REALM = 'Administrator';
const PRUSA_LINK_NONCE_SECONDS = 60;

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/** "5.1.2" → true: firmware before 5.2.0 keeps the short nonce lifetime. */
const hasShortNonces = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return major < 5 || (major === 5 && minor < 2);
};

const digestFields = (request: FakeRequest): Map<string, string> | null => {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^\s*Digest\s+(.*)$/is.exec(header) : null;
  if (!match) return null;
  const fields = new Map<string, string>();
  for (const part of match[1]!.matchAll(/([a-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/gi))
    fields.set(part[1]!.toLowerCase(), part[2] ?? part[3] ?? '');
  return fields;
};

const requestUri = (request: FakeRequest): string => `${request.url.pathname}${request.url.search}`;

const hasBody = (request: FakeRequest): boolean =>
  request.body.length > 0 || Number(request.headers['content-length'] ?? 0) > 0;

export const createSimulatorAuth = (options: SimulatorAuthOptions): SimulatorAuth =>
  options.firmware === 'buddy' ? buddyAuth(options) : prusaLinkAuth(options);

const buddyAuth = (options: SimulatorAuthOptions): SimulatorAuth => {
  const shortNonces = hasShortNonces(options.buddyVersion);
  const bootedAt = options.now();
  let random = randomBytes(4).toString('hex');
  /** Seconds since boot, as the firmware's ticks_s(). */
  const ticks = (): number => Math.floor((options.now() - bootedAt) / 1000);
  const newNonce = (): string => `${random}${ticks().toString(16).padStart(8, '0')}`;
  const lifetime = (request: FakeRequest): number => (shortNonces ? (hasBody(request) ? 8 : 5) : 300);

  const challenge = (stale: boolean): FakeAnswer => ({
    status: 401,
    text: '401: Unauthorized',
    headers: {
      'www-authenticate': `Digest realm="${BUDDY_REALM}", nonce="${newNonce()}", stale=${stale ? 'true' : 'false'}`,
    },
  });

  return {
    reboot() {
      random = randomBytes(4).toString('hex');
    },
    refusal(request) {
      const apiKey = request.headers['x-api-key'];
      if (apiKey !== undefined)
        return apiKey === options.apiKey ? null : { status: 401, text: '401: Unauthorized' };
      const fields = digestFields(request);
      const nonce = fields?.get('nonce') ?? '';
      if (!fields || !/^[0-9a-f]{16}$/.test(nonce)) return challenge(false);
      // The firmware hashes its own user name and the request line's URI, not the header's fields.
      const ha1 = md5(`${BUDDY_USER}:${BUDDY_REALM}:${options.password}`);
      const ha2 = md5(`${request.method}:${requestUri(request)}`);
      const digestRight = fields.get('response') === md5(`${ha1}:${nonce}:${ha2}`);
      const age = ticks() - Number.parseInt(nonce.slice(8), 16);
      const nonceValid = nonce.slice(0, 8) === random && age >= 0 && age < lifetime(request);
      if (nonceValid) return digestRight ? null : challenge(false);
      return challenge(digestRight);
    },
  };
};

const prusaLinkAuth = (options: SimulatorAuthOptions): SimulatorAuth => {
  let secret = randomBytes(8).toString('hex');
  const opaque = randomBytes(8).toString('hex');
  const newNonce = (): string => {
    const issued = Math.floor(options.now() / 1000).toString(16);
    return `${issued}.${md5(`${issued}:${secret}`)}`;
  };

  const challenge = (stale: boolean): FakeAnswer => ({
    status: 401,
    text: 'Unauthorized',
    headers: {
      'www-authenticate':
        `Digest realm="${PRUSA_LINK_REALM}", qop="auth", algorithm="MD5", nonce="${newNonce()}", opaque="${opaque}"` +
        (stale ? ', stale=True' : ''),
    },
  });

  return {
    reboot() {
      secret = randomBytes(8).toString('hex');
    },
    refusal(request) {
      const apiKey = request.headers['x-api-key'];
      if (apiKey !== undefined)
        return apiKey === options.apiKey ? null : { status: 403, text: 'Bad X-Api-Key.' };
      const fields = digestFields(request);
      if (!fields || fields.get('username') !== options.username) return challenge(false);
      const nonce = fields.get('nonce') ?? '';
      const [issued = '', signature = ''] = nonce.split('.');
      if (signature !== md5(`${issued}:${secret}`)) return challenge(false);
      const ha1 = md5(`${options.username}:${PRUSA_LINK_REALM}:${options.password}`);
      const ha2 = md5(`${request.method}:${fields.get('uri') ?? ''}`);
      const expected =
        fields.get('qop') === 'auth'
          ? md5(`${ha1}:${nonce}:${fields.get('nc') ?? ''}:${fields.get('cnonce') ?? ''}:auth:${ha2}`)
          : md5(`${ha1}:${nonce}:${ha2}`);
      if (fields.get('uri') !== requestUri(request) || fields.get('response') !== expected)
        return challenge(false);
      const age = Math.floor(options.now() / 1000) - Number.parseInt(issued, 16);
      return age < PRUSA_LINK_NONCE_SECONDS ? null : challenge(true);
    },
  };
};
