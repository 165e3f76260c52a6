export * from './pricing.ts';
export * from './routes.ts';
export * from './accounts.ts';
export * from './site.ts';
export * from './designs.ts';
export * from './orders.ts';
export * from './shops.ts';
export * from './products.ts';
