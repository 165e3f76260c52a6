import type { DashboardOverview, Me } from '@layerline/contracts';

/**
 * Counts contributed by the capabilities that exist. Designs, products, orders and shops register
 * their counter when their module is built; until then their count is 0 and their checklist item
 * says it is not available yet.
 */
export interface SellerCounters {
  designs?: (userId: string) => Promise<number>;
  products?: (userId: string) => Promise<number>;
  openOrders?: (userId: string) => Promise<number>;
  connectedShops?: (userId: string) => Promise<number>;
}

export function isAccountComplete(me: Me): boolean {
  const a = me.returnAddress;
  return Boolean(me.name && a.line1 && a.city && a.postalCode && a.country);
}

export function createDashboardService(counters: SellerCounters) {
  const countOf = async (counter: ((userId: string) => Promise<number>) | undefined, userId: string) =>
    counter ? counter(userId) : 0;

  return {
    async overview(me: Me): Promise<DashboardOverview> {
      const [designs, products, openOrders, connectedShops] = await Promise.all([
        countOf(counters.designs, me.id),
        countOf(counters.products, me.id),
        countOf(counters.openOrders, me.id),
        countOf(counters.connectedShops, me.id),
      ]);
      const accountComplete = isAccountComplete(me);
      return {
        designs,
        products,
        openOrders,
        connectedShops,
        accountComplete,
        checklist: [
          { id: 'account', label: 'Add your name and ship-from address', done: accountComplete, href: '/account-settings', available: true },
          { id: 'design', label: 'Upload your first design', done: designs > 0, href: '/create-product', available: Boolean(counters.designs) },
          { id: 'product', label: 'Group designs into a product', done: products > 0, href: '/products', available: Boolean(counters.products) },
          {
            id: 'shop',
            label: 'Connect your shop',
            done: connectedShops > 0,
            href: '/connect-store',
            available: Boolean(counters.connectedShops) && (me.isBetaTester || me.isAdmin),
          },
        ],
      };
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
