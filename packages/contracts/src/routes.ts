/**
 * The route table of the specification (§2): every path of the web app, who may see it,
 * its page title and where the redirects go. The web router and the browser tests both
 * read it, so a route cannot exist in one and not the other.
 */
export type RouteAccess = 'public' | 'logged-out-only' | 'signed-in' | 'beta' | 'admin';

export interface RouteDef {
  readonly path: string;
  readonly title: string;
  readonly access: RouteAccess;
}

export const ROUTES = [
  { path: '/', title: 'Home', access: 'public' },
  { path: '/how-it-works', title: 'How It Works', access: 'public' },
  { path: '/our-story', title: 'Our Story', access: 'public' },
  { path: '/pricing', title: 'Pricing', access: 'public' },
  { path: '/contact-us', title: 'Contact Us', access: 'public' },
  { path: '/privacy-policy', title: 'Privacy Policy', access: 'public' },
  { path: '/3d-design-handling-policy', title: '3D Design Handling Policy', access: 'public' },
  { path: '/under-construction', title: 'Under Construction', access: 'public' },
  { path: '/shippo-oauth-redirect', title: 'Connecting Shippo', access: 'public' },
  { path: '/tracking/:trackingNumber', title: 'Track a Parcel', access: 'public' },
  { path: '/unsubscribe', title: 'Unsubscribe', access: 'public' },
  { path: '/login', title: 'Login', access: 'logged-out-only' },
  { path: '/register', title: 'Register', access: 'logged-out-only' },
  { path: '/get-started', title: 'Get Started', access: 'logged-out-only' },
  { path: '/dashboard', title: 'Dashboard', access: 'signed-in' },
  { path: '/create-product', title: 'Create Product', access: 'signed-in' },
  { path: '/my-designs', title: 'My Designs', access: 'signed-in' },
  { path: '/print-configurations', title: 'Print Configurations', access: 'signed-in' },
  { path: '/upload-design', title: 'Upload Design', access: 'signed-in' },
  { path: '/submit-order', title: 'Submit Order', access: 'signed-in' },
  { path: '/account-settings', title: 'Account Settings', access: 'signed-in' },
  { path: '/products', title: 'Products', access: 'signed-in' },
  { path: '/fulfillment-history', title: 'Fulfillment History', access: 'signed-in' },
  { path: '/welcome', title: 'Welcome', access: 'signed-in' },
  { path: '/orders', title: 'Orders', access: 'signed-in' },
  { path: '/billing', title: 'Billing', access: 'signed-in' },
  { path: '/billing/authenticate/:chargeId', title: 'Confirm a Payment', access: 'signed-in' },
  { path: '/claims', title: 'Claims', access: 'signed-in' },
  { path: '/connect-store', title: 'Connect Store', access: 'beta' },
  { path: '/link-listings', title: 'Link Listings', access: 'beta' },
  { path: '/affiliate-links', title: 'Affiliate Links', access: 'beta' },
  { path: '/admin', title: 'Admin', access: 'admin' },
  { path: '/admin-print-configs', title: 'Design Files', access: 'admin' },
  { path: '/shipping-profiles', title: 'Shipping Profiles', access: 'admin' },
  { path: '/admin-fulfillment-history', title: 'Admin Fulfillment History', access: 'admin' },
  { path: '/affiliates', title: 'Affiliates', access: 'admin' },
  { path: '/admin-orders', title: 'All Orders', access: 'admin' },
  { path: '/admin-printers', title: 'Printers', access: 'admin' },
  { path: '/admin-production', title: 'Production', access: 'admin' },
  { path: '/admin-outbox', title: 'Email Outbox', access: 'admin' },
  { path: '/admin-claims', title: 'Claims Queue', access: 'admin' },
] as const satisfies readonly RouteDef[];

export type AppPath = (typeof ROUTES)[number]['path'];

/** Fixed redirects (§2). Unknown paths go to the landing page. */
export const REDIRECTS: Readonly<Record<string, AppPath>> = {
  '/upload-and-print': '/create-product',
  '/upload': '/create-product',
  '/link-skus': '/products',
};
export const UNKNOWN_PATH_TARGET: AppPath = '/';

/** Where a guard sends someone who may not see a route. */
export const GUARD_TARGET = {
  'logged-out-only': '/dashboard',
  'signed-in': '/login',
  beta: '/',
  admin: '/dashboard',
} as const satisfies Record<Exclude<RouteAccess, 'public'>, AppPath>;

export const BRAND = 'Layerline';
export const documentTitle = (page: string): string => `${page} | ${BRAND}`;

/** The 7 steps of the guided tour (§2). */
export const TOUR_STEPS = [
  { title: 'Dashboard', path: '/dashboard', body: 'Your overview: designs, products, orders and what needs your attention.' },
  { title: 'Upload Design Files', path: '/create-product', body: 'Upload STL, 3MF or OBJ files and get an instant quote.' },
  { title: 'Products', path: '/products', body: 'Group designs into products and give each variant its SKU.' },
  { title: 'Submit Order', path: '/submit-order', body: 'Place a manual order for your own products.' },
  { title: 'Fulfillment History', path: '/fulfillment-history', body: 'Every order we printed and shipped for you, with tracking.' },
  { title: 'Account Settings', path: '/account-settings', body: 'Your name, business and the address parcels ship from.' },
  { title: 'Tour Complete', path: '/dashboard', body: 'That is everything. Upload your first design to get started.' },
] as const satisfies readonly { title: string; path: AppPath; body: string }[];

/** Spec §9 timing constants used by the web shell. */
export const UI_TIMING = {
  heroVideoLoadingTimeoutMs: 3000,
  tourAutoAdvanceMs: 5000,
  toastDefaultMs: 4000,
  scrollAnimationMs: 500,
  heroVideoPlaybackRate: 1.25,
} as const;

/** Launch countdown target: 2025-03-15 19:00 at UTC−5. */
export const LAUNCH_AT = new Date('2025-03-15T19:00:00-05:00');
