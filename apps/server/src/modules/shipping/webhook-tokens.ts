import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The secret path segments of the tracking webhook URLs. Shippo's webhooks and ShipStation's carry no
 * signature we could check, so the URL itself is the secret: derived from APP_SECRET, one for Shippo
 * (an app-wide URL) and one per seller for ShipStation (it also names the seller).
 */
export function createWebhookTokens(appSecret: string) {
  const key = createHmac('sha256', appSecret).update('layerline:shipping-webhooks').digest();
  const tokenFor = (purpose: string) => createHmac('sha256', key).update(purpose).digest('base64url');
  const same = (given: string, expected: string) => {
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  return {
    shippo: () => tokenFor('shippo'),
    isShippo: (token: string) => same(token, tokenFor('shippo')),
    shipStation: (ownerId: string) => `${Buffer.from(ownerId).toString('base64url')}.${tokenFor(`shipstation:${ownerId}`)}`,
    /** The seller a ShipStation token was made for, or null when it was not made by us. */
    shipStationOwner(token: string): string | null {
      const [encodedOwner = '', mac = ''] = token.split('.');
      const ownerId = Buffer.from(encodedOwner, 'base64url').toString('utf8');
      return ownerId && same(mac, tokenFor(`shipstation:${ownerId}`)) ? ownerId : null;
    },
  };
}

export type WebhookTokens = ReturnType<typeof createWebhookTokens>;
