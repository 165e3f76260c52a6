import type { AppContext } from '../src/app-context.ts';
import { product, productVariant } from '../src/db/schema.ts';
import type { MarketplaceOrder } from '../src/modules/shops/connector.ts';

/**
 * Test helpers for the orders and shops suites: a product with variants written straight to the
 * database (a real variant needs designs with quotes, which these suites do not test), and a
 * marketplace order.
 */
export async function addVariants(
  context: AppContext,
  ownerId: string,
  skus: readonly string[],
  name = 'Test product',
): Promise<Map<string, string>> {
  const [row] = await context.db.insert(product).values({ ownerId, name }).returning({ id: product.id });
  const ids = new Map<string, string>();
  for (const sku of skus) {
    const [variant] = await context.db
      .insert(productVariant)
      .values({ productId: row!.id, ownerId, name: sku, sku })
      .returning({ id: productVariant.id });
    ids.set(sku, variant!.id);
  }
  return ids;
}

export function marketplaceOrder(
  externalId: string,
  skus: readonly string[],
  extra: Partial<MarketplaceOrder> = {},
): MarketplaceOrder {
  return {
    externalId,
    placedAt: new Date('2025-03-01T12:00:00Z'),
    customerName: 'Maya Thompson',
    shippingAddress: {
      name: 'Maya Thompson',
      company: '',
      line1: '1420 Larkin Street',
      line2: '',
      city: 'San Francisco',
      region: 'CA',
      postalCode: '94109',
      country: 'US',
      phone: '',
      email: '',
    },
    currency: 'USD',
    totalCents: 2400 * skus.length,
    cancelled: false,
    items: skus.map((sku, index) => ({
      externalItemId: `${externalId}-${index}`,
      sku,
      title: `Item ${sku}`,
      quantity: 1,
      unitPriceCents: 2400,
    })),
    ...extra,
  };
}
