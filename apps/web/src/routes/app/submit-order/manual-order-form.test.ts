import { describe, expect, it } from 'vitest';
import { EMPTY_ADDRESS, validateManualOrder } from './manual-order-form.ts';

const address = {
  ...EMPTY_ADDRESS,
  name: 'Ada',
  line1: '1 Main St',
  city: 'Springfield',
  postalCode: '12345',
  country: 'US',
};

describe('manual order form', () => {
  it('accepts a complete order', () => {
    const result = validateManualOrder([{ key: 1, sku: 'CUBE', quantity: '2' }], address, ' gift ');
    expect(result.errors).toEqual({});
    expect(result.input).toMatchObject({ items: [{ sku: 'CUBE', quantity: 2 }], note: 'gift' });
  });

  it('puts each problem under its field', () => {
    const result = validateManualOrder(
      [{ key: 1, sku: '', quantity: '0' }],
      { ...address, city: ' ', country: 'usa', email: 'nope' },
      '',
    );
    expect(result.input).toBeNull();
    expect(result.errors).toMatchObject({
      'items.0.sku': 'Choose a product',
      'items.0.quantity': '1 to 1000',
      'shippingAddress.city': 'City is required',
      'shippingAddress.country': 'Country must be a two-letter ISO code like US',
    });
    expect(result.errors['shippingAddress.email']).toBeTruthy();
  });
});
