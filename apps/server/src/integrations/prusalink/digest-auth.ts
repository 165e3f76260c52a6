import { createHash, randomBytes } from 'node:crypto';

/**
 * HTTP Digest access authentication, client side (RFC 7616; RFC 2617/2069 compatible): what
 * PrusaLink asks for. MD5 and SHA-256 (and their -sess variants), qop "auth" or no qop (the older
 * form some printers still answer with). auth-int is not supported (no printer here asks for it).
 * Small and self-contained: no npm package for it is both tiny and maintained.
 */
export interface DigestChallenge {
  readonly realm: string;
  readonly nonce: string;
  readonly opaque?: string;
  readonly algorithm: string;
  /** The qop values offered ("auth", "auth-int"); empty for the RFC 2069 form. */
  readonly qop: readonly string[];
  readonly stale: boolean;
}

/** Parses a `WWW-Authenticate: Digest …` header; null when it is not a usable Digest challenge. */
export const parseDigestChallenge = (header: string | null): DigestChallenge | null => {
  if (!header) return null;
  const match = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!match) return null;
  const params = new Map<string, string>();
  const pattern = /([a-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/gi;
  for (const part of match[1]!.matchAll(pattern)) {
    params.set(
      part[1]!.toLowerCase(),
      part[2] !== undefined ? part[2].replace(/\\(.)/g, '$1') : (part[3] ?? ''),
    );
  }
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined || !nonce) return null;
  const algorithm = (params.get('algorithm') ?? 'MD5').toUpperCase();
  if (!['MD5', 'MD5-SESS', 'SHA-256', 'SHA-256-SESS'].includes(algorithm)) return null;
  const opaque = params.get('opaque');
  return {
    realm,
    nonce,
    algorithm,
    qop: (params.get('qop') ?? '')
      .split(',')
      .map((value) => value.trim().toLowerCase())
      .filter(Boolean),
    stale: (params.get('stale') ?? '').toLowerCase() === 'true',
    ...(opaque !== undefined ? { opaque } : {}),
  };
};

export interface DigestCredentials {
  readonly username: string;
  readonly password: string;
}

export interface DigestRequest {
  readonly method: string;
  /** The request target as sent: path and query ("/api/v1/status"). */
  readonly uri: string;
  /** Counts requests made with this nonce, from 1. */
  readonly nonceCount: number;
  /** Client nonce; random when not given (tests give the RFC's). */
  readonly cnonce?: string;
}

const quote = (value: string): string => `"${value.replace(/(["\\])/g, '\\$1')}"`;

/** The `Authorization` header value answering the challenge. */
export const digestAuthorization = (
  challenge: DigestChallenge,
  credentials: DigestCredentials,
  request: DigestRequest,
): string => {
  const sha = challenge.algorithm.startsWith('SHA-256');
  const hash = (text: string): string =>
    createHash(sha ? 'sha256' : 'md5')
      .update(text, 'utf8')
      .digest('hex');
  const cnonce = request.cnonce ?? randomBytes(16).toString('hex');
  const nc = request.nonceCount.toString(16).padStart(8, '0');
  let ha1 = hash(`${credentials.username}:${challenge.realm}:${credentials.password}`);
  if (challenge.algorithm.endsWith('-SESS')) ha1 = hash(`${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = hash(`${request.method}:${request.uri}`);
  const qop = challenge.qop.includes('auth') ? 'auth' : null;
  const response = qop
    ? hash(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:${qop}:${ha2}`)
    : hash(`${ha1}:${challenge.nonce}:${ha2}`);
  const parts = [
    `username=${quote(credentials.username)}`,
    `realm=${quote(challenge.realm)}`,
    `uri=${quote(request.uri)}`,
    `algorithm=${challenge.algorithm === 'MD5-SESS' ? 'MD5-sess' : challenge.algorithm === 'SHA-256-SESS' ? 'SHA-256-sess' : challenge.algorithm}`,
    `nonce=${quote(challenge.nonce)}`,
    ...(qop ? [`nc=${nc}`, `cnonce=${quote(cnonce)}`, `qop=${qop}`] : []),
    `response=${quote(response)}`,
    ...(challenge.opaque !== undefined ? [`opaque=${quote(challenge.opaque)}`] : []),
  ];
  return `Digest ${parts.join(', ')}`;
};
