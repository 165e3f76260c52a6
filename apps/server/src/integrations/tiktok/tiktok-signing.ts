import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * TikTok Shop's request signature (Partner Center "Sign your API request"; docs/marketplaces/tiktok.md):
 * every query parameter except `sign` and `access_token`, sorted by key and joined as `{key}{value}`,
 * prefixed with the request path, followed by the raw body (JSON requests; multipart is never
 * signed with its body and we send none), wrapped in the app secret on both sides; hex HMAC-SHA256
 * keyed with the app secret.
 */
export const signTikTokRequest = (input: {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** The exact body bytes sent (as text), or '' for none. */
  readonly body: string;
  readonly appSecret: string;
}): string => {
  const params = Object.keys(input.query)
    .filter((key) => key !== 'sign' && key !== 'access_token')
    .sort()
    .map((key) => `${key}${input.query[key]}`)
    .join('');
  const wrapped = `${input.appSecret}${input.path}${params}${input.body}${input.appSecret}`;
  return createHmac('sha256', input.appSecret).update(wrapped).digest('hex');
};

/** Constant-time comparison; false (never an exception) when lengths differ. */
const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * A webhook push carries a signature in its `Authorization` header. TikTok's page only points back
 * to the request signature; the input is NOT confirmed by a vendor text. We follow the community
 * rule (easycb/easycb-go tiktok/sign.go): hex HMAC-SHA256 keyed with the app secret over the app
 * key followed by the raw body.
 */
export const verifyTikTokWebhook = (
  rawBody: Buffer,
  signature: string | undefined,
  appKey: string,
  appSecret: string,
): boolean => {
  if (typeof signature !== 'string' || signature.trim() === '' || appSecret === '' || appKey === '')
    return false;
  const expected = createHmac('sha256', appSecret).update(appKey).update(rawBody).digest('hex');
  return safeEqual(expected, signature.trim().toLowerCase());
};
