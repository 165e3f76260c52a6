import type { AppPath } from '@layerline/contracts';

/** A link of the header, the mobile drawer or the side nav. */
export interface NavItem {
  label: string;
  to: AppPath;
}

export interface HeaderNavigation {
  links: NavItem[];
  /** The logged-out call to action ("Let's Gooooo!"). */
  callToAction: NavItem | null;
  showLogout: boolean;
}

interface Viewer {
  loading: boolean;
  isAuthenticated: boolean;
  isAdmin: boolean;
}

/**
 * The header links per role, exactly as §2 lists them. The desktop header and the mobile
 * drawer both render this, which is how the drawer "mirrors" the header.
 */
export function headerNavigation(viewer: Viewer): HeaderNavigation {
  // Until we know who is looking, show no links rather than the wrong ones.
  if (viewer.loading) return { links: [], callToAction: null, showLogout: false };
  if (!viewer.isAuthenticated) {
    return {
      links: [
        { label: 'Our Story', to: '/our-story' },
        { label: 'How it works', to: '/how-it-works' },
        { label: 'Pricing', to: '/pricing' },
        { label: 'Contact Us', to: '/contact-us' },
      ],
      callToAction: { label: "Let's Gooooo!", to: '/get-started' },
      showLogout: false,
    };
  }
  if (viewer.isAdmin) {
    return {
      links: [
        { label: 'Dashboard', to: '/dashboard' },
        { label: 'Admin', to: '/admin' },
      ],
      callToAction: null,
      showLogout: true,
    };
  }
  return {
    links: [
      { label: 'Dashboard', to: '/dashboard' },
      { label: 'How it works', to: '/how-it-works' },
      { label: 'Pricing', to: '/pricing' },
      { label: 'Contact Us', to: '/contact-us' },
    ],
    callToAction: null,
    showLogout: true,
  };
}

export type SideNavArea = 'seller' | 'admin';

export type SideNavIcon =
  | 'dashboard'
  | 'create'
  | 'designs'
  | 'products'
  | 'order'
  | 'history'
  | 'billing'
  | 'settings'
  | 'store'
  | 'link'
  | 'affiliate'
  | 'admin'
  | 'shipping'
  | 'printer'
  | 'production'
  | 'email'
  | 'claim';

export interface SideNavItem extends NavItem {
  icon: SideNavIcon;
}

/** The side nav of signed-in pages (§2): the seller's, with beta extras, or the admin's. */
export function sideNavItems(area: SideNavArea, isBetaTester: boolean): SideNavItem[] {
  if (area === 'admin') {
    return [
      { label: 'Admin', to: '/admin', icon: 'admin' },
      { label: 'Orders', to: '/admin-orders', icon: 'order' },
      { label: 'Production', to: '/admin-production', icon: 'production' },
      { label: 'Printers', to: '/admin-printers', icon: 'printer' },
      { label: 'Shipping Profiles', to: '/shipping-profiles', icon: 'shipping' },
      { label: 'Fulfillment History', to: '/admin-fulfillment-history', icon: 'history' },
      { label: 'Design Files', to: '/admin-print-configs', icon: 'designs' },
      { label: 'Affiliates', to: '/affiliates', icon: 'affiliate' },
      { label: 'Email Outbox', to: '/admin-outbox', icon: 'email' },
      { label: 'Claims', to: '/admin-claims', icon: 'claim' },
    ];
  }
  const items: SideNavItem[] = [
    { label: 'Dashboard', to: '/dashboard', icon: 'dashboard' },
    { label: 'Create Product', to: '/create-product', icon: 'create' },
    { label: 'My Designs', to: '/my-designs', icon: 'designs' },
    { label: 'Products', to: '/products', icon: 'products' },
    { label: 'Orders', to: '/orders', icon: 'history' },
    { label: 'Submit Order', to: '/submit-order', icon: 'order' },
    { label: 'Fulfillment History', to: '/fulfillment-history', icon: 'history' },
    { label: 'Billing', to: '/billing', icon: 'billing' },
    { label: 'Claims', to: '/claims', icon: 'claim' },
    { label: 'Account Settings', to: '/account-settings', icon: 'settings' },
  ];
  if (isBetaTester) {
    items.push(
      { label: 'Connect Store', to: '/connect-store', icon: 'store' },
      { label: 'Link Listings', to: '/link-listings', icon: 'link' },
      { label: 'Affiliate Links', to: '/affiliate-links', icon: 'affiliate' },
    );
  }
  return items;
}
