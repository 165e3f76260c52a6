/*
 * The whole database schema, as one entry point for the ORM (db/client.ts), drizzle-kit (migrations are
 * generated from this file into ../../drizzle) and the tests. Each module owns its tables, beside its
 * repository, in modules/<domain>/<domain>-schema.ts; the tables better-auth reads and writes belong to
 * no single module and are in db/auth-schema.ts. A module's schema imports only the tables it points
 * at, so the schema files never import in a circle (import-cycles.test.ts).
 */
export * from './auth-schema.ts';
export * from '../modules/accounts/accounts-schema.ts';
export * from '../modules/audit/audit-schema.ts';
export * from '../modules/site/site-schema.ts';
export * from '../modules/analytics/analytics-schema.ts';
export * from '../modules/designs/designs-schema.ts';
export * from '../modules/quotes/quotes-schema.ts';
export * from '../modules/products/products-schema.ts';
export * from '../modules/shops/shops-schema.ts';
export * from '../modules/orders/orders-schema.ts';
export * from '../modules/order-api/order-api-schema.ts';
export * from '../modules/production/production-schema.ts';
export * from '../modules/shipping/shipping-schema.ts';
export * from '../modules/fulfillment/fulfillment-schema.ts';
export * from '../modules/payments/payments-schema.ts';
export * from '../modules/affiliates/affiliates-schema.ts';
export * from '../modules/notifications/notifications-schema.ts';
export * from '../modules/claims/claims-schema.ts';
export * from '../modules/branding/branding-schema.ts';
export * from '../modules/listing-images/listing-images-schema.ts';
export * from '../modules/checkout-rates/checkout-rates-schema.ts';
