import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MalformedOrderError } from '../../modules/shops/connector.ts';
import { wooCommerceSandboxOrderPayload } from './woocommerce-sandbox-order.ts';
import { createWooCommerceWebhookReceiver, wooWebhookSecret } from './woocommerce-webhook-receiver.ts';

/**
 * The webhook side, against WooCommerce's own code (class-wc-webhook.php, deliver() and
 * generate_signature(): base64 of the raw HMAC-SHA256 of the delivered JSON body, keyed with the
 * webhook secret; deliver_ping(): a form-encoded `webhook_id=<id>` without signature headers).
 * Expected signatures are computed here with node:crypto, independently of the receiver.
 */

const APP_SECRET = 'test-app-secret-0123456789abcdef0123456789';
const SHOP = 'shop.example.com/store';
const receiver = createWooCommerceWebhookReceiver(APP_SECRET);

const body = Buffer.from(
  JSON.stringify(
    wooCommerceSandboxOrderPayload({
      sequence: 73,
      placedAt: new Date('2026-11-20T09:30:00.000Z'),
      buyer: {
        name: 'Grace Hopper',
        address: {
          name: 'Grace Hopper',
          company: '',
          line1: '1 Navy Yard',
          line2: '',
          city: 'Arlington',
          region: 'VA',
          postalCode: '22202',
          country: 'US',
          phone: '',
          email: 'grace@example.com',
        },
      },
      items: [{ sku: 'LL-DRAGON-ART', title: 'Articulated Dragon', quantity: 1, unitPriceCents: 2900 }],
      currency: 'USD',
    }),
  ),
);

/** What the store computes: its secret is ours, derived for the shop; the HMAC is over the raw bytes. */
const secretFor = (shop: string) =>
  createHmac('sha256', APP_SECRET).update(`woocommerce-webhook:${shop}`).digest('base64url');
const sign = (bytes: Buffer, secret: string) => createHmac('sha256', secret).update(bytes).digest('base64');

const headers = (overrides: Record<string, string | undefined> = {}) => ({
  'content-type': 'application/json',
  'x-wc-webhook-source': 'https://Shop.Example.com/store/',
  'x-wc-webhook-topic': 'order.updated',
  'x-wc-webhook-resource': 'order',
  'x-wc-webhook-event': 'updated',
  'x-wc-webhook-signature': sign(body, secretFor(SHOP)),
  'x-wc-webhook-id': '31',
  'x-wc-webhook-delivery-id': 'a9c2b3d4e5f60718293a4b5c6d7e8f90',
  ...overrides,
});

describe('WooCommerce webhook receiver', () => {
  it('derives the per-shop secret as base64url(HMAC-SHA256(appSecret, "woocommerce-webhook:" + shop))', () => {
    expect(wooWebhookSecret(APP_SECRET, SHOP)).toBe(secretFor(SHOP));
    expect(wooWebhookSecret(APP_SECRET, SHOP)).toMatch(/^[A-Za-z0-9_-]{43}$/); // nothing wp_specialchars_decode() changes
    expect(wooWebhookSecret(APP_SECRET, 'other.example.com')).not.toBe(secretFor(SHOP));
  });

  it('read(): the store (normalised like externalShopId), topic, signature and a delivery id per body', () => {
    const delivery = receiver.read(headers(), body);
    expect(delivery.shopId).toBe(SHOP);
    expect(delivery.topic).toBe('order.updated');
    expect(delivery.signature).toBe(headers()['x-wc-webhook-signature']);
    expect(delivery.deliveryId).toMatch(/^a9c2b3d4e5f60718293a4b5c6d7e8f90:[0-9a-f]{32}$/);
    // The same delivery id (same webhook, same second) with another body is another delivery…
    expect(receiver.read(headers(), Buffer.from(`${body.toString()} `)).deliveryId).not.toBe(
      delivery.deliveryId,
    );
    // …and the same bytes again are the same one.
    expect(receiver.read(headers(), Buffer.from(body)).deliveryId).toBe(delivery.deliveryId);
    // A home still configured as http:// names the same store.
    expect(
      receiver.read(headers({ 'x-wc-webhook-source': 'http://shop.example.com/store/' }), body).shopId,
    ).toBe(SHOP);
    expect(
      receiver.read(headers({ 'x-wc-webhook-delivery-id': undefined }), body).deliveryId,
    ).toBeUndefined();
  });

  it('verify(): valid for the exact bytes with the shop’s secret; invalid when tampered, for another shop, or unsigned', () => {
    const signature = headers()['x-wc-webhook-signature'];
    expect(receiver.verify(body, signature, SHOP)).toBe(true);
    const tampered = Buffer.from(body.toString().replace('"quantity":1', '"quantity":9'));
    expect(tampered.equals(body)).toBe(false);
    expect(receiver.verify(tampered, signature, SHOP)).toBe(false);
    expect(receiver.verify(body, signature, 'evil.example.com')).toBe(false);
    expect(receiver.verify(body, sign(body, 'the-default-md5-secret'), SHOP)).toBe(false);
    expect(receiver.verify(body, undefined, SHOP)).toBe(false);
    expect(receiver.verify(body, '', SHOP)).toBe(false);
    expect(receiver.verify(body, 'not base64 at all', SHOP)).toBe(false);
  });

  it('classify(): order.created/updated name an order to read fresh; order.deleted and the rest are ignored', () => {
    expect(receiver.classify('order.created')).toBe('order-ref');
    expect(receiver.classify('order.updated')).toBe('order-ref');
    expect(receiver.classify('order.deleted')).toBe('ignore');
    expect(receiver.classify('product.updated')).toBe('ignore');
    expect(receiver.classify('action.woocommerce_add_to_cart')).toBe('ignore');
  });

  it('orderRef(): the order id from the body; MalformedOrderError when there is none', () => {
    expect(receiver.orderRef!(JSON.parse(body.toString()))).toBe('73');
    expect(() => receiver.orderRef!({ id: 0 })).toThrow(MalformedOrderError);
    expect(() => receiver.orderRef!({ number: '73' })).toThrow(/names no order id/);
    expect(() => receiver.orderRef!(null)).toThrow(MalformedOrderError);
  });

  it('parseOrder(): the body maps like the poll; a pending order or a broken one is refused with the reason', () => {
    const payload = JSON.parse(body.toString()) as Record<string, unknown>;
    expect(receiver.parseOrder(payload)).toMatchObject({
      externalId: '73',
      customerName: 'Grace Hopper',
      cancelled: false,
    });
    expect(() => receiver.parseOrder({ ...payload, status: 'pending' })).toThrow(/order is pending/);
    expect(() => receiver.parseOrder({ ...payload, line_items: 'none' })).toThrow(
      /Not a WooCommerce order \(line_items:/,
    );
  });

  it('isPing(): the unsigned form-encoded ping only', () => {
    const ping = Buffer.from('webhook_id=31');
    const pingHeaders = {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'WooCommerce/9.0 Hookshot (WordPress/6.5)',
    };
    expect(receiver.isPing!(pingHeaders, ping)).toBe(true);
    expect(receiver.isPing!(headers(), body)).toBe(false);
    expect(receiver.isPing!(pingHeaders, Buffer.from('webhook_id=31&x=1'))).toBe(false);
    expect(receiver.isPing!({ ...pingHeaders, 'x-wc-webhook-topic': 'order.updated' }, ping)).toBe(false);
  });
});
