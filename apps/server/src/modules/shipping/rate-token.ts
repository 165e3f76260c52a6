import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProviderRate } from './shipping-provider.ts';

/**
 * The rate ids the pages get: the provider's rate, bound to the order's parcel and signed, so buying
 * needs no stored quote (any process can buy it) and a rate cannot be edited (a cheaper amount) or
 * used for another order. Providers check their own rate ids when the label is bought.
 */
export function createRateTokens(appSecret: string) {
  const key = createHmac('sha256', appSecret).update('layerline:shipping-rate-token').digest();
  const sign = (body: string) => createHmac('sha256', key).update(body).digest('base64url');

  return {
    seal(orderId: string, parcelIndex: number, rate: ProviderRate): string {
      const body = Buffer.from(JSON.stringify({ o: orderId, p: parcelIndex, r: rate })).toString('base64url');
      return `${body}.${sign(body)}`;
    },

    /** The rate, or null when the token was not made by us for this order's parcel. */
    open(token: string, orderId: string, parcelIndex: number): ProviderRate | null {
      const [body, mac] = token.split('.');
      if (!body || !mac) return null;
      const expected = Buffer.from(sign(body));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      try {
        const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { o: string; p: number; r: ProviderRate };
        return parsed.o === orderId && parsed.p === parcelIndex ? parsed.r : null;
      } catch {
        return null;
      }
    },
  };
}

export type RateTokens = ReturnType<typeof createRateTokens>;
