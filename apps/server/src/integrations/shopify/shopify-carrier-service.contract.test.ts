import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckoutRate } from '@layerline/contracts';
import { CHECKOUT_RATES_BUDGET_MS } from '../../modules/checkout-rates/checkout-rates-service.ts';
import { shopifyCarrierCallback, shopifyRateRequestSchema, shopifyRateResponseSchema, shopifyRateSchema } from './shopify-carrier-service.ts';

/**
 * Our side of Shopify's carrier service callback against Shopify's published description of it,
 * kept beside this test (carrier-service-callback.md, copied from Shopify's Admin schema 2026-01):
 * its example request, its example response, its table of response fields and its timeouts.
 */

const DESCRIPTION = readFileSync(path.join(import.meta.dirname, 'carrier-service-callback.md'), 'utf8');

/** The JSON block under a heading of the description. */
function exampleAfter(heading: string): unknown {
  const start = DESCRIPTION.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  const block = /```json\n([\s\S]*?)\n```/.exec(DESCRIPTION.slice(start))!;
  return JSON.parse(block[1]!);
}

const exampleRequest = () => exampleAfter('### Example shipping rate request sent to a carrier service') as { rate: Record<string, any> };
const exampleResponse = () => exampleAfter('### Example response') as { rates: Record<string, unknown>[] };

/** The "Response fields" table: each field's name and whether Shopify requires it. */
function responseFields(): { field: string; required: boolean }[] {
  const table = DESCRIPTION.slice(DESCRIPTION.indexOf('### Response fields'), DESCRIPTION.indexOf('### Special conditions'));
  return [...table.matchAll(/^\| `(\w+)`\s*\| (Yes|No)\s*\|/gm)].map((m) => ({ field: m[1]!, required: m[2] === 'Yes' }));
}

const OURS: CheckoutRate[] = [
  {
    serviceName: 'Sandbox Post Ground',
    serviceCode: 'sandbox_post:ground',
    description: 'Standard: arrives within 7 days',
    totalCents: 1295,
    currency: 'USD',
    minDeliveryDate: '2026-12-12',
    maxDeliveryDate: '2026-12-14',
  },
  { serviceName: 'Sandbox Post Freight', serviceCode: 'sandbox_post:freight', description: 'Ships within 2 days', totalCents: 4000, currency: 'USD', minDeliveryDate: null, maxDeliveryDate: null },
];

describe('Shopify’s request, as published', () => {
  it('parses Shopify’s example request into a destination and items by SKU', () => {
    const body = exampleRequest();
    expect(shopifyRateRequestSchema.safeParse(body).success).toBe(true);
    const request = shopifyCarrierCallback.parse(body);
    expect(request.destination).toMatchObject({ country: 'CA', postalCode: 'K1M1M4', region: 'ON', city: 'Ottawa', line1: '24 Sussex Dr.', name: 'Bob Norman' });
    expect(request.items).toEqual([{ sku: '', quantity: 1, requiresShipping: true }]);
  });

  it('negative: a body without the rate, items without quantity, or a destination without country is refused', () => {
    const body = exampleRequest();
    expect(() => shopifyCarrierCallback.parse({})).toThrow(/rate/);
    const noQuantity = structuredClone(body);
    delete noQuantity.rate.items[0].quantity;
    expect(() => shopifyCarrierCallback.parse(noQuantity)).toThrow(/quantity/);
    const noCountry = structuredClone(body);
    delete noCountry.rate.destination.country;
    expect(() => shopifyCarrierCallback.parse(noCountry)).toThrow(/country/);
  });
});

describe('our answer, against the published response', () => {
  it('our response schema accepts Shopify’s own example response (minus its optional metafields)', () => {
    const example = exampleResponse();
    // metafields are optional (the table says No); we never send them, so our strict schema omits them.
    const withoutMetafields = { rates: example.rates.map(({ metafields: _m, description, ...rate }) => ({ description: description ?? '', ...rate })) };
    expect(shopifyRateResponseSchema.safeParse(withoutMetafields).success).toBe(true);
  });

  it('requires every field the table marks required, and knows every field it lists', () => {
    const fields = responseFields();
    expect(fields.map((f) => f.field)).toEqual([
      'service_name',
      'description',
      'service_code',
      'currency',
      'total_price',
      'phone_required',
      'min_delivery_date',
      'max_delivery_date',
      'metafields',
    ]);
    const answer = shopifyCarrierCallback.answer(OURS) as { rates: Record<string, unknown>[] };
    const rate = answer.rates[0]!;
    for (const { field, required } of fields) {
      if (field === 'metafields') continue;
      const { [field]: _dropped, ...without } = rate;
      expect(shopifyRateSchema.safeParse(without).success, `${field} is ${required ? 'required' : 'optional'}`).toBe(!required);
    }
  });

  it('answers rates Shopify accepts: price in subunits as a string, a stable code, dates only when known', () => {
    const answer = shopifyCarrierCallback.answer(OURS);
    expect(shopifyRateResponseSchema.parse(answer)).toEqual({
      rates: [
        {
          service_name: 'Sandbox Post Ground',
          description: 'Standard: arrives within 7 days',
          service_code: 'sandbox_post:ground',
          currency: 'USD',
          total_price: '1295',
          min_delivery_date: '2026-12-12 12:00:00 +0000',
          max_delivery_date: '2026-12-14 12:00:00 +0000',
        },
        { service_name: 'Sandbox Post Freight', description: 'Ships within 2 days', service_code: 'sandbox_post:freight', currency: 'USD', total_price: '4000' },
      ],
    });
    // The published example writes dates as "2013-04-12 14:48:45 -0400": ours have that shape.
    const exampleDate = exampleResponse().rates[0]!.min_delivery_date as string;
    const shape = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/;
    expect(exampleDate).toMatch(shape);
    expect((answer as any).rates[0].min_delivery_date).toMatch(shape);
  });

  it('an empty list is the published way to say “cannot ship this”', () => {
    expect(DESCRIPTION).toContain('return an empty array and any successful (20x) HTTP code');
    expect(shopifyRateResponseSchema.parse(shopifyCarrierCallback.answer([]))).toEqual({ rates: [] });
  });
});

describe('the time limit', () => {
  it('answers (or gives up for backup rates) well within Shopify’s shortest read timeout', () => {
    const timeouts = [...DESCRIPTION.matchAll(/^\| (?:Under|Over|\d)[^|]*\| (\d+)s\s*\|/gm)].map((m) => Number(m[1]) * 1000);
    expect(timeouts).toEqual([10_000, 5_000, 3_000]);
    expect(DESCRIPTION).toContain('Timeouts or errors will trigger backup rates');
    expect(CHECKOUT_RATES_BUDGET_MS).toBeLessThan(Math.min(...timeouts));
  });
});
