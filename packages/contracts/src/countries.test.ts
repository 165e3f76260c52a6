import { describe, expect, it } from 'vitest';
import { ISO_3166_1_ALPHA_2, isCountryCode } from './countries.ts';
import { apiOrderInputSchema, manualOrderInputSchema, shippingAddressInputSchema, shippingAddressSchema } from './orders.ts';

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

describe('ISO 3166-1 alpha-2 country codes', () => {
  it('holds the 249 assigned codes, once each, and none of the reserved or user-assigned ones', () => {
    expect(ISO_3166_1_ALPHA_2).toHaveLength(249);
    expect(new Set(ISO_3166_1_ALPHA_2).size).toBe(249);
    for (const code of ['US', 'GB', 'DE', 'FR', 'JP', 'SS', 'CW', 'AX', 'BQ', 'SX']) expect(isCountryCode(code), code).toBe(true);
    for (const code of ['XX', 'XK', 'EU', 'UK', 'UN', 'ZZ', 'AA', 'QO', 'YU', 'us', 'USA', '']) expect(isCountryCode(code), code).toBe(false);
  });

  it('is required of the addresses people send: the order API and manual orders refuse XX', () => {
    expect(shippingAddressInputSchema.safeParse(ADDRESS).success).toBe(true);
    const xx = shippingAddressInputSchema.safeParse({ ...ADDRESS, country: 'XX' });
    expect(xx.success).toBe(false);
    expect(xx.error?.issues[0]?.message).toMatch(/ISO 3166-1/);
    expect(shippingAddressInputSchema.safeParse({ ...ADDRESS, extra: 1 }).success).toBe(false); // still strict
    const order = { externalId: '1', items: [{ sku: 'A', quantity: 1 }] };
    expect(apiOrderInputSchema.safeParse({ ...order, shippingAddress: ADDRESS }).success).toBe(true);
    expect(apiOrderInputSchema.safeParse({ ...order, shippingAddress: { ...ADDRESS, country: 'XX' } }).success).toBe(false);
    expect(manualOrderInputSchema.safeParse({ items: order.items, shippingAddress: { ...ADDRESS, country: 'XX' } }).success).toBe(false);
  });

  it('is not imposed on stored addresses (a marketplace may have sent any code)', () => {
    expect(shippingAddressSchema.safeParse({ ...ADDRESS, country: 'XK' }).success).toBe(true);
  });
});
