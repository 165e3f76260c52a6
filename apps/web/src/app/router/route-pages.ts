import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { AppPath } from '@layerline/contracts';

/**
 * The page component of every path of the route table. `satisfies Record<AppPath, …>` makes
 * the compiler reject a route without a page. Pages load lazily so each visitor downloads only
 * the part of the app they use.
 */
const MyDesignsPage = lazy(() => import('../../routes/app/designs/MyDesignsPage.tsx'));

export const ROUTE_PAGES = {
  '/': lazy(() => import('../../routes/public/landing/LandingPage.tsx')),
  '/how-it-works': lazy(() => import('../../routes/public/how-it-works/HowItWorksPage.tsx')),
  '/our-story': lazy(() => import('../../routes/public/our-story/OurStoryPage.tsx')),
  '/pricing': lazy(() => import('../../routes/public/pricing/PricingPage.tsx')),
  '/contact-us': lazy(() => import('../../routes/public/contact-us/ContactUsPage.tsx')),
  '/privacy-policy': lazy(() => import('../../routes/public/privacy-policy/PrivacyPolicyPage.tsx')),
  '/3d-design-handling-policy': lazy(
    () => import('../../routes/public/design-handling-policy/DesignHandlingPolicyPage.tsx'),
  ),
  '/under-construction': lazy(
    () => import('../../routes/public/under-construction/UnderConstructionPage.tsx'),
  ),
  '/shippo-oauth-redirect': lazy(
    () => import('../../routes/public/shippo-oauth-redirect/ShippoOAuthRedirectPage.tsx'),
  ),
  '/tracking/:trackingNumber': lazy(() => import('../../routes/public/tracking/TrackingPage.tsx')),
  '/unsubscribe': lazy(() => import('../../routes/public/unsubscribe/UnsubscribePage.tsx')),

  '/login': lazy(() => import('../../routes/auth/login/LoginPage.tsx')),
  '/register': lazy(() => import('../../routes/auth/register/RegisterPage.tsx')),
  '/get-started': lazy(() => import('../../routes/auth/get-started/GetStartedPage.tsx')),

  '/dashboard': lazy(() => import('../../routes/app/dashboard/DashboardPage.tsx')),
  '/create-product': lazy(() => import('../../routes/app/designs/CreateProductPage.tsx')),
  '/my-designs': MyDesignsPage,
  // §2: print configurations are the same page as my designs.
  '/print-configurations': MyDesignsPage,
  '/upload-design': lazy(() => import('../../routes/app/designs/UploadDesignPage.tsx')),
  '/submit-order': lazy(() => import('../../routes/app/submit-order/SubmitOrderPage.tsx')),
  '/account-settings': lazy(() => import('../../routes/app/account-settings/AccountSettingsPage.tsx')),
  '/products': lazy(() => import('../../routes/app/products/ProductsPage.tsx')),
  '/fulfillment-history': lazy(
    () => import('../../routes/app/fulfillment-history/FulfillmentHistoryPage.tsx'),
  ),
  '/welcome': lazy(() => import('../../routes/app/welcome/WelcomePage.tsx')),
  '/orders': lazy(() => import('../../routes/app/orders/OrdersPage.tsx')),
  '/billing': lazy(() => import('../../routes/app/billing/BillingPage.tsx')),
  '/billing/authenticate/:chargeId': lazy(() => import('../../routes/app/billing/AuthenticatePaymentPage.tsx')),
  '/claims': lazy(() => import('../../routes/app/claims/ClaimsPage.tsx')),
  '/connect-store': lazy(() => import('../../routes/app/connect-store/ConnectStorePage.tsx')),
  '/link-listings': lazy(() => import('../../routes/app/link-listings/LinkListingsPage.tsx')),
  '/affiliate-links': lazy(() => import('../../routes/app/affiliate-links/AffiliateLinksPage.tsx')),

  '/admin': lazy(() => import('../../routes/admin/overview/AdminPage.tsx')),
  '/admin-print-configs': lazy(() => import('../../routes/admin/design-files/AdminDesignFilesPage.tsx')),
  '/shipping-profiles': lazy(() => import('../../routes/admin/shipping-profiles/ShippingProfilesPage.tsx')),
  '/admin-fulfillment-history': lazy(
    () => import('../../routes/admin/fulfillment-history/AdminFulfillmentHistoryPage.tsx'),
  ),
  '/affiliates': lazy(() => import('../../routes/admin/affiliates/AffiliatesPage.tsx')),
  '/admin-orders': lazy(() => import('../../routes/admin/orders/AdminOrdersPage.tsx')),
  '/admin-printers': lazy(() => import('../../routes/admin/printers/PrintersPage.tsx')),
  '/admin-production': lazy(() => import('../../routes/admin/production/ProductionPage.tsx')),
  '/admin-outbox': lazy(() => import('../../routes/admin/outbox/EmailOutboxPage.tsx')),
  '/admin-claims': lazy(() => import('../../routes/admin/claims/AdminClaimsPage.tsx')),
} satisfies Record<AppPath, LazyExoticComponent<ComponentType>>;
