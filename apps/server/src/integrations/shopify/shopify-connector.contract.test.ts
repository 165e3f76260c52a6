import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, execute, parse, validate, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { createShopifyConnector, SHOPIFY_CURSOR_OVERLAP_MS } from './shopify-connector.ts';
import { SHOPIFY_DOCUMENTS } from './shopify-graphql.ts';
import { parseShopifyOrderWebhook } from './shopify-mapping.ts';
import {
  ShopifyCallbackError,
  shopifyQueryMessage,
  verifyShopifyQueryHmac,
  verifyShopifyWebhook,
} from './shopify-signatures.ts';

/**
 * Contract tests for the Shopify connector.
 * - Every GraphQL document is validated against Shopify's published Admin schema 2026-01.
 * - The HTTP side runs against a local node:http "shop" that checks each request's shape, then
 *   validates AND executes the received document with its variables against that same schema
 *   (so variables such as FulfillmentInput are type-checked, and answers carry exactly the fields
 *   the query selected, with Shopify's types and non-null rules).
 *
 * Known defect: graphql-js 17's schema validation rejects Shopify's SDL (implementations deprecated
 * where the interface field is not, e.g. MediaImage.metafield), so the schema is built with
 * assumeValid; documents are still fully validated against it.
 */

const SCHEMA_FILE = '/work/shared/contracts/shopify/admin_schema_2026-01_public.graphql';
const SECRET = 'shpss_test_secret';
const SHOP = 'layerline-test.myshopify.com';
const TOKEN = 'shpat_test_token';
const NOW = new Date('2026-11-21T12:00:00.000Z');

let schema: GraphQLSchema;
let server: Server;
let origin: string;

interface GraphqlCall {
  operationName: string;
  variables: Record<string, unknown>;
}
let tokenCalls: { contentType: string; body: unknown }[] = [];
let graphqlCalls: GraphqlCall[] = [];
let webhookResults: boolean[] = [];
let throttleNext = 0;
let fulfillmentStatuses = ['OPEN', 'CLOSED'];
/** Topics already subscribed to an address (Shopify answers a userError "has already been taken"). */
let subscribedTopics = new Set<string>();
let refuseSubscriptions = false;
/** The carrierServiceCreate inputs the shop received (checkout rates, issue 24). */
let carrierServiceInputs: { name: string; callbackUrl: string; active: boolean; supportsServiceDiscovery: boolean }[] = [];

const readRaw = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });

// ── Fixtures for the schema-executing shop (shaped by the schema, not by us) ──
const variant = (n: number, product: number, opts: { sku: string; only?: boolean; status?: string }) => ({
  id: `gid://shopify/ProductVariant/${n}`,
  sku: opts.sku,
  title: opts.only ? 'Default Title' : `Size ${n}`,
  price: '24.50',
  image: null,
  product: {
    id: `gid://shopify/Product/${product}`,
    title: `Vase ${product}`,
    status: opts.status ?? 'ACTIVE',
    onlineStoreUrl: `https://layerline-test.example/products/vase-${product}`,
    hasOnlyDefaultVariant: opts.only ?? false,
    featuredMedia: {
      __typename: 'MediaImage',
      preview: { image: { url: `https://cdn.shopify.com/vase-${product}.png` } },
    },
  },
});

const orderNode = (id: string, opts: { cancelled?: boolean } = {}) => ({
  id: `gid://shopify/Order/${id}`,
  name: `#${id.slice(-4)}`,
  createdAt: '2026-11-20T10:00:00Z',
  updatedAt: '2026-11-21T11:30:00Z',
  cancelledAt: opts.cancelled ? '2026-11-21T11:00:00Z' : null,
  email: 'buyer@example.com',
  currencyCode: 'USD',
  totalPriceSet: { shopMoney: { amount: '53.99', currencyCode: 'USD' } },
  shippingAddress: {
    name: 'Ada Lovelace',
    company: null,
    address1: '1 Analytical Way',
    address2: 'Unit 2',
    city: 'Portland',
    provinceCode: 'OR',
    province: 'Oregon',
    zip: '97201',
    countryCodeV2: 'US',
    phone: '+15035550100',
  },
  lineItems: {
    nodes: [
      {
        id: 'gid://shopify/LineItem/11',
        sku: 'VASE-S',
        title: 'Vase',
        quantity: 2,
        requiresShipping: true,
        originalUnitPriceSet: { shopMoney: { amount: '24.50', currencyCode: 'USD' } },
      },
      {
        id: 'gid://shopify/LineItem/12',
        sku: null,
        title: 'Gift card',
        quantity: 1,
        requiresShipping: false,
        originalUnitPriceSet: { shopMoney: { amount: '5.00', currencyCode: 'USD' } },
      },
    ],
  },
});

const rootValue = {
  shop: {
    id: 'gid://shopify/Shop/1',
    name: 'Layerline Test Store',
    myshopifyDomain: SHOP,
    currencyCode: 'USD',
  },
  productVariants: (args: { after?: string | null; query?: string }) =>
    args.after
      ? {
          nodes: [variant(3, 2, { sku: 'LAMP-1', only: true })],
          pageInfo: { hasNextPage: false, endCursor: 'c2', hasPreviousPage: true },
        }
      : {
          nodes: [
            variant(1, 1, { sku: 'VASE-S' }),
            variant(2, 1, { sku: ' VASE-L ' }),
            variant(9, 9, { sku: 'DRAFT-1', status: 'DRAFT' }),
          ],
          pageInfo: { hasNextPage: true, endCursor: 'c1', hasPreviousPage: false },
        },
  orders: () => ({
    nodes: [orderNode('820982911946154508'), orderNode('820982911946154509', { cancelled: true })],
    pageInfo: { hasNextPage: false, endCursor: null, hasPreviousPage: false },
  }),
  order: (args: { id: string }) => ({
    id: args.id,
    fulfillmentOrders: {
      nodes: fulfillmentStatuses.map((status, i) => ({
        id: `gid://shopify/FulfillmentOrder/${i + 1}`,
        status,
      })),
    },
  }),
  fulfillmentCreate: () => ({
    fulfillment: { id: 'gid://shopify/Fulfillment/1', status: 'SUCCESS' },
    userErrors: [],
  }),
  carrierServiceCreate: (args: { input: { name: string; callbackUrl: string; active: boolean; supportsServiceDiscovery: boolean } }) => {
    carrierServiceInputs.push(args.input);
    return {
      carrierService: { id: 'gid://shopify/DeliveryCarrierService/7', name: args.input.name, callbackUrl: args.input.callbackUrl, active: args.input.active },
      userErrors: [],
    };
  },
  carrierServiceDelete: (args: { id: string }) =>
    args.id === 'gid://shopify/DeliveryCarrierService/7'
      ? { deletedId: args.id, userErrors: [] }
      : { deletedId: null, userErrors: [{ field: ['id'], message: 'The carrier service could not be found' }] },
  webhookSubscriptionCreate: (args: { topic: string; webhookSubscription: { uri?: string } }) => {
    if (refuseSubscriptions)
      return {
        webhookSubscription: null,
        userErrors: [{ field: ['webhookSubscription', 'uri'], message: 'Address is invalid' }],
      };
    if (subscribedTopics.has(args.topic))
      return {
        webhookSubscription: null,
        userErrors: [{ field: ['address'], message: 'Address for this topic has already been taken' }],
      };
    subscribedTopics.add(args.topic);
    return {
      webhookSubscription: {
        id: `gid://shopify/WebhookSubscription/${subscribedTopics.size}`,
        topic: args.topic,
        uri: args.webhookSubscription.uri,
      },
      userErrors: [],
    };
  },
};

beforeAll(async () => {
  schema = buildSchema(readFileSync(SCHEMA_FILE, 'utf8'), { assumeValid: true });
  server = createServer((req, res) => {
    void (async () => {
      const raw = await readRaw(req);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && req.url === '/admin/oauth/access_token') {
        const body = JSON.parse(raw.toString()) as Record<string, unknown>;
        tokenCalls.push({ contentType: req.headers['content-type'] ?? '', body });
        const ok =
          body.client_id === 'api-key' && body.client_secret === SECRET && typeof body.code === 'string';
        return send(
          ok ? 200 : 400,
          ok ? { access_token: TOKEN, scope: 'read_products,read_orders' } : { error: 'invalid_request' },
        );
      }
      if (req.method === 'POST' && req.url === '/admin/api/2026-01/graphql.json') {
        if (req.headers['x-shopify-access-token'] !== TOKEN)
          return send(401, { errors: '[API] Invalid API key or access token' });
        if (!String(req.headers['content-type']).startsWith('application/json'))
          return send(415, { errors: 'json only' });
        const { query, variables } = JSON.parse(raw.toString()) as {
          query: string;
          variables: Record<string, unknown>;
        };
        const document = parse(query);
        const errors = validate(schema, document);
        if (errors.length > 0) return send(400, { errors: errors.map((e) => ({ message: e.message })) });
        const operationName =
          document.definitions[0]?.kind === 'OperationDefinition'
            ? (document.definitions[0].name?.value ?? '')
            : '';
        graphqlCalls.push({ operationName, variables });
        if (throttleNext > 0) {
          throttleNext -= 1;
          return send(200, {
            errors: [
              {
                message: 'Throttled',
                extensions: {
                  code: 'THROTTLED',
                  cost: {
                    requestedQueryCost: 150,
                    throttleStatus: { currentlyAvailable: 50, restoreRate: 50 },
                  },
                },
              },
            ],
          });
        }
        const result = await execute({ schema, document, rootValue, variableValues: variables });
        return send(
          200,
          result.errors
            ? { errors: result.errors.map((e) => ({ message: e.message })) }
            : { data: result.data },
        );
      }
      if (req.method === 'POST' && req.url === '/webhooks/shopify') {
        const header = req.headers['x-shopify-hmac-sha256'];
        const ok = verifyShopifyWebhook(raw, typeof header === 'string' ? header : undefined, SECRET);
        webhookResults.push(ok);
        return send(ok ? 200 : 401, {});
      }
      return send(404, {});
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  tokenCalls = [];
  graphqlCalls = [];
  webhookResults = [];
  throttleNext = 0;
  fulfillmentStatuses = ['OPEN', 'CLOSED'];
  subscribedTopics = new Set();
  refuseSubscriptions = false;
  carrierServiceInputs = [];
});

const sleeps: number[] = [];
const connector = () =>
  createShopifyConnector({
    apiKey: 'api-key',
    apiSecret: SECRET,
    scopes: 'read_products,read_orders',
    apiVersion: '2026-01',
    now: () => NOW,
    shopOrigin: () => origin,
    allowedOrigins: [origin],
    requestsPerSecond: 1000,
    http: {
      baseDelayMs: 5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
  });

const credentials: ShopCredentials = {
  externalShopId: SHOP,
  accessToken: TOKEN,
  refreshToken: null,
  tokenExpiresAt: null,
  settings: { shopHost: SHOP, currency: 'USD' },
};

const signed = (params: Record<string, string>, secret = SECRET): Record<string, string> => ({
  ...params,
  hmac: createHmac('sha256', secret).update(shopifyQueryMessage(params)).digest('hex'),
});

const callbackParams = (shop = SHOP) => ({
  code: '0907a61c0c8d55e99db179b68161bc00',
  host: Buffer.from(`${shop}/admin`).toString('base64url'),
  shop,
  state: 'state-123',
  timestamp: String(Math.floor(NOW.getTime() / 1000)),
});

describe('Shopify GraphQL documents against the Admin schema 2026-01', () => {
  it.each(Object.entries(SHOPIFY_DOCUMENTS))('%s validates with 0 errors', (_name, document) => {
    expect(validate(schema, parse(document)).map((e) => e.message)).toEqual([]);
  });

  it('negative: a misspelled field, a wrong argument and an unknown input field are errors', () => {
    expect(validate(schema, parse('query { shop { nmae } }')).length).toBeGreaterThan(0);
    expect(validate(schema, parse('query { orders(first: "ten") { nodes { id } } }')).length).toBeGreaterThan(
      0,
    );
    const badMutation = SHOPIFY_DOCUMENTS.FULFILLMENT_CREATE_MUTATION.replace('userErrors', 'userErorrs');
    expect(
      validate(schema, parse(badMutation))
        .map((e) => e.message)
        .join(),
    ).toContain('userErorrs');
  });

  it('negative: webhookSubscriptionCreate with the deprecated callbackUrl as a String, or an unknown input field, is an error', () => {
    const subscription = SHOPIFY_DOCUMENTS.WEBHOOK_SUBSCRIPTION_CREATE_MUTATION;
    // callbackUrl is of type URL: a String! variable in that position does not validate.
    const asCallbackUrl = subscription.replace('{ uri: $uri', '{ callbackUrl: $uri');
    expect(
      validate(schema, parse(asCallbackUrl))
        .map((e) => e.message)
        .join(),
    ).toContain('URL');
    const unknownField = subscription.replace('{ uri: $uri', '{ url: $uri');
    expect(
      validate(schema, parse(unknownField))
        .map((e) => e.message)
        .join(),
    ).toContain('url');
    const badTopic =
      'mutation { webhookSubscriptionCreate(topic: ORDER_CREATE, webhookSubscription: { uri: "https://x.example" }) { userErrors { message } } }';
    expect(validate(schema, parse(badTopic)).length).toBeGreaterThan(0);
  });
});

describe('Shopify connector over HTTP (local shop executing the real schema)', () => {
  it('listListings: pages productVariants, one listing per variant with its SKU, drafts skipped', async () => {
    const listings = await connector().listListings(credentials);
    expect(graphqlCalls.map((c) => c.operationName)).toEqual([
      'LayerlineProductVariants',
      'LayerlineProductVariants',
    ]);
    expect(graphqlCalls.map((c) => c.variables.after)).toEqual([null, 'c1']);
    expect(listings).toEqual([
      {
        externalListingId: '1',
        externalVariantId: '1',
        title: 'Vase 1 – Size 1',
        sku: 'VASE-S',
        priceCents: 2450,
        currency: 'USD',
        url: 'https://layerline-test.example/products/vase-1',
        imageUrl: 'https://cdn.shopify.com/vase-1.png',
      },
      expect.objectContaining({ externalListingId: '1', externalVariantId: '2', sku: 'VASE-L' }),
      expect.objectContaining({
        externalListingId: '2',
        externalVariantId: '',
        title: 'Vase 2',
        sku: 'LAMP-1',
      }),
    ]);
  });

  it('fetchOrders: updated_at filter = cursor − 10 min; line items without shipping dropped; cancelled flagged', async () => {
    const cursor = '2026-11-21T11:00:00.000Z';
    const { orders, nextCursor } = await connector().fetchOrders(credentials, cursor);
    expect(graphqlCalls).toHaveLength(1);
    expect(graphqlCalls[0]!.variables).toEqual({
      query: `updated_at:>='${new Date(Date.parse(cursor) - SHOPIFY_CURSOR_OVERLAP_MS).toISOString()}'`,
      after: null,
    });
    expect(nextCursor).toBe(NOW.toISOString());
    expect(orders).toHaveLength(2);
    expect(orders[0]).toEqual({
      externalId: '820982911946154508',
      placedAt: new Date('2026-11-20T10:00:00Z'),
      customerName: 'Ada Lovelace',
      shippingAddress: {
        name: 'Ada Lovelace',
        company: '',
        line1: '1 Analytical Way',
        line2: 'Unit 2',
        city: 'Portland',
        region: 'OR',
        postalCode: '97201',
        country: 'US',
        phone: '+15035550100',
        email: 'buyer@example.com',
      },
      currency: 'USD',
      totalCents: 5399,
      cancelled: false,
      items: [{ externalItemId: '11', sku: 'VASE-S', title: 'Vase', quantity: 2, unitPriceCents: 2450 }],
    });
    expect(orders[1]!.cancelled).toBe(true);
  });

  it('waits and retries when Shopify answers THROTTLED, and gives up with a delay when it persists', async () => {
    sleeps.length = 0;
    throttleNext = 1;
    await connector().fetchOrders(credentials, null);
    expect(sleeps).toEqual([2000]); // (150 − 50) / 50 per second
    throttleNext = 10;
    const error = await connector()
      .fetchOrders(credentials, null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(2);
  });

  it('pushTracking: fulfillmentOrders of the order, then fulfillmentCreate on the open ones with tracking', async () => {
    await connector().pushTracking(credentials, '820982911946154508', {
      trackingNumber: '1Z999AA10123456784',
      carrierName: 'ups',
    });
    expect(graphqlCalls.map((c) => c.operationName)).toEqual([
      'LayerlineFulfillmentOrders',
      'LayerlineFulfillmentCreate',
    ]);
    expect(graphqlCalls[0]!.variables).toEqual({ id: 'gid://shopify/Order/820982911946154508' });
    expect(graphqlCalls[1]!.variables).toEqual({
      fulfillment: {
        lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/1' }],
        trackingInfo: { number: '1Z999AA10123456784', company: 'UPS' },
        notifyCustomer: true,
      },
    });
    // Already fulfilled: nothing is sent again.
    graphqlCalls = [];
    fulfillmentStatuses = ['CLOSED'];
    await connector().pushTracking(credentials, '820982911946154508', {
      trackingNumber: 'x',
      carrierName: 'usps',
    });
    expect(graphqlCalls.map((c) => c.operationName)).toEqual(['LayerlineFulfillmentOrders']);
    await expect(
      connector().pushTracking(credentials, 'not-a-number', { trackingNumber: 'x', carrierName: 'usps' }),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
  });

  it('subscribeWebhooks: one webhookSubscriptionCreate per topic with the https uri; "already taken" is fine', async () => {
    const uri = 'https://layerline.example/api/webhooks/shopify';
    await connector().subscribeWebhooks!(credentials, uri);
    expect(graphqlCalls.map((c) => c.operationName)).toEqual(
      Array(4).fill('LayerlineWebhookSubscriptionCreate'),
    );
    expect(graphqlCalls.map((c) => c.variables)).toEqual(
      ['ORDERS_CREATE', 'ORDERS_UPDATED', 'ORDERS_CANCELLED', 'APP_UNINSTALLED'].map((topic) => ({
        topic,
        uri,
      })),
    );
    // Connecting again: every topic is already subscribed; that is not an error.
    await connector().subscribeWebhooks!(credentials, uri);
    // Any other userError is refused, naming the topics.
    refuseSubscriptions = true;
    const error = await connector().subscribeWebhooks!(credentials, uri).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as Error).message).toContain('ORDERS_CREATE: Address is invalid');
    // Not https: refused before any request.
    graphqlCalls = [];
    await expect(
      connector().subscribeWebhooks!(credentials, 'http://localhost:3000/api/webhooks/shopify'),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
    expect(graphqlCalls).toHaveLength(0);
  });

  it('a revoked token is a MarketplaceRejectedError(401), not retried', async () => {
    const error = await connector()
      .listListings({ ...credentials, accessToken: 'revoked' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(401);
  });
});

describe('Shopify OAuth (OAUTH-1)', () => {
  it('authorizeUrl: only a myshopify.com host; client_id, scope, redirect_uri, state', () => {
    const url = new URL(
      connector().authorizeUrl({
        state: 's1',
        codeChallenge: 'ignored',
        redirectUri: 'https://l.example/cb',
        shopHost: SHOP,
      }),
    );
    expect(url.origin + url.pathname).toBe(`https://${SHOP}/admin/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'api-key',
      scope: 'read_products,read_orders',
      redirect_uri: 'https://l.example/cb',
      state: 's1',
    });
    for (const shopHost of ['evil.com', 'a.myshopify.com.evil.com', 'x.y.myshopify.com', '', undefined]) {
      expect(() =>
        connector().authorizeUrl({
          state: 's',
          codeChallenge: 'c',
          redirectUri: 'https://l.example/cb',
          shopHost,
        }),
      ).toThrow(MarketplaceRejectedError);
    }
  });

  it('matches Shopify’s documented HMAC example', () => {
    const query = {
      code: '0907a61c0c8d55e99db179b68161bc00',
      shop: 'some-shop.myshopify.com',
      timestamp: '1337178173',
      hmac: '4712bf92ffc2917d15a2f5a273e39f0116667419aa4b6ac0b3baaf26fa3c4d20',
    };
    expect(verifyShopifyQueryHmac(query, 'hush')).toBe(true);
    expect(verifyShopifyQueryHmac({ ...query, timestamp: '1337178174' }, 'hush')).toBe(false);
  });

  it('completes a valid callback: code exchanged as JSON, shop read, shop host stored', async () => {
    const result = await connector().completeAuthorization({
      query: signed(callbackParams()),
      codeVerifier: 'unused-by-shopify',
      redirectUri: 'https://l.example/cb',
      shopHost: SHOP,
    });
    expect(tokenCalls).toEqual([
      {
        contentType: 'application/json',
        body: { client_id: 'api-key', client_secret: SECRET, code: '0907a61c0c8d55e99db179b68161bc00' },
      },
    ]);
    expect(graphqlCalls.map((c) => c.operationName)).toEqual(['LayerlineShop']);
    expect(result).toEqual({
      externalShopId: SHOP,
      shopName: 'Layerline Test Store',
      tokens: { accessToken: TOKEN, refreshToken: null, tokenExpiresAt: null },
      scopes: 'read_products,read_orders',
      settings: { shopHost: SHOP, shopGid: 'gid://shopify/Shop/1', currency: 'USD' },
    });
  });

  const attacks: [string, () => Record<string, string>, string | undefined, string][] = [
    [
      'tampered hmac',
      () => ({
        ...signed(callbackParams()),
        hmac: signed(callbackParams()).hmac!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
      }),
      SHOP,
      'bad-hmac',
    ],
    [
      'tampered code after signing',
      () => ({ ...signed(callbackParams()), code: 'attacker-code' }),
      SHOP,
      'bad-hmac',
    ],
    ['hmac of another length', () => ({ ...signed(callbackParams()), hmac: 'abc' }), SHOP, 'bad-hmac'],
    ['signed with another secret', () => signed(callbackParams(), 'wrong-secret'), SHOP, 'bad-hmac'],
    ['missing hmac', () => callbackParams(), SHOP, 'missing-hmac'],
    ['shop=evil.com (even if signed)', () => signed(callbackParams('evil.com')), 'evil.com', 'bad-shop'],
    [
      'shop on a look-alike domain',
      () => signed(callbackParams('x.myshopify.com.evil.com')),
      SHOP,
      'bad-shop',
    ],
    [
      'a different store than the one started',
      () => signed(callbackParams('other-store.myshopify.com')),
      SHOP,
      'shop-mismatch',
    ],
    ['no started store', () => signed(callbackParams()), undefined, 'shop-mismatch'],
  ];

  it.each(attacks)('rejects %s before any token request', async (_name, query, shopHost, reason) => {
    const error = await connector()
      .completeAuthorization({
        query: query(),
        codeVerifier: '',
        redirectUri: 'https://l.example/cb',
        shopHost,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyCallbackError);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as ShopifyCallbackError).reason).toBe(reason);
    expect((error as ShopifyCallbackError).status).toBe(400);
    expect(tokenCalls).toHaveLength(0);
    expect(graphqlCalls).toHaveLength(0);
  });
});

describe('Shopify webhooks (WH-3)', () => {
  const payload = {
    id: 820982911946154508, // beyond 2^53: why the gid is used for ids
    admin_graphql_api_id: 'gid://shopify/Order/820982911946154508',
    created_at: '2026-11-20T05:00:00-05:00',
    updated_at: '2026-11-21T06:30:00-05:00',
    cancelled_at: null,
    email: 'buyer@example.com',
    currency: 'USD',
    total_price: '53.99',
    shipping_address: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      name: 'Ada Lovelace',
      company: null,
      address1: '1 Analytical Way',
      address2: 'Unit 2',
      city: 'Portland',
      province: 'Oregon',
      province_code: 'OR',
      zip: '97201',
      country: 'United States',
      country_code: 'US',
      phone: '+15035550100',
    },
    line_items: [
      {
        id: 11,
        admin_graphql_api_id: 'gid://shopify/LineItem/11',
        sku: 'VASE-S',
        title: 'Vase',
        name: 'Vase - S',
        quantity: 2,
        price: '24.50',
        requires_shipping: true,
      },
      {
        id: 12,
        admin_graphql_api_id: 'gid://shopify/LineItem/12',
        sku: null,
        title: 'Gift card',
        quantity: 1,
        price: '5.00',
        requires_shipping: false,
      },
    ],
  };
  const raw = Buffer.from(JSON.stringify(payload, null, 1)); // as delivered, not as we'd re-serialise it
  const sign = (body: Buffer, secret = SECRET) => createHmac('sha256', secret).update(body).digest('base64');

  const deliver = async (body: Buffer, hmac: string | undefined) => {
    const response = await fetch(`${origin}/webhooks/shopify`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(hmac === undefined ? {} : { 'x-shopify-hmac-sha256': hmac }),
      },
      body: new Uint8Array(body),
    });
    return response.status;
  };

  it('accepts only a valid signature over the raw body', async () => {
    expect(await deliver(raw, sign(raw))).toBe(200);
    expect(await deliver(Buffer.from(raw.toString().replace('53.99', '0.01')), sign(raw))).toBe(401); // tampered
    expect(await deliver(raw, sign(raw, 'wrong-secret'))).toBe(401);
    expect(await deliver(raw, '')).toBe(401);
    expect(await deliver(raw, undefined)).toBe(401);
    expect(await deliver(raw, 'c2hvcnQ=')).toBe(401); // another length: false, no exception
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(raw.toString())));
    expect(await deliver(reserialised, sign(raw))).toBe(401); // the raw bytes are what is signed
    expect(webhookResults).toEqual([true, false, false, false, false, false, false]);
  });

  it('parses an orders/* webhook into the same order the poll produces', async () => {
    const fromWebhook = parseShopifyOrderWebhook(JSON.parse(raw.toString()));
    const { orders } = await connector().fetchOrders(credentials, null);
    expect(fromWebhook.externalId).toBe(orders[0]!.externalId);
    expect(fromWebhook.items).toEqual(orders[0]!.items);
    expect(fromWebhook.shippingAddress).toEqual(orders[0]!.shippingAddress);
    expect(fromWebhook.totalCents).toBe(5399);
    expect(fromWebhook.placedAt.toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(() => parseShopifyOrderWebhook({ id: 1 })).toThrow(MalformedOrderError);
  });
});

describe('checkout rates: the carrier service (issue 24)', () => {
  it('registers the callback as an active carrier service with service discovery, and answers its id', async () => {
    const id = await connector().registerCarrierService!(credentials, { name: 'Layerline shipping', callbackUrl: 'https://layerline.example/api/checkout-rates/shopify/x/y' });
    expect(id).toBe('gid://shopify/DeliveryCarrierService/7');
    expect(carrierServiceInputs).toEqual([
      { name: 'Layerline shipping', callbackUrl: 'https://layerline.example/api/checkout-rates/shopify/x/y', active: true, supportsServiceDiscovery: true },
    ]);
    expect(graphqlCalls.map((c) => c.operationName)).toEqual(['LayerlineCarrierServiceCreate']);
  });

  it('refuses an http callback before asking Shopify (it calls only public https URLs)', async () => {
    await expect(connector().registerCarrierService!(credentials, { name: 'x', callbackUrl: 'http://localhost:3000/cb' })).rejects.toThrow(/https/);
    expect(graphqlCalls).toEqual([]);
  });

  it('removes it; one Shopify no longer has is fine', async () => {
    await connector().removeCarrierService!(credentials, 'gid://shopify/DeliveryCarrierService/7');
    await connector().removeCarrierService!(credentials, 'gid://shopify/DeliveryCarrierService/404');
    expect(graphqlCalls.map((c) => c.variables)).toEqual([{ id: 'gid://shopify/DeliveryCarrierService/7' }, { id: 'gid://shopify/DeliveryCarrierService/404' }]);
  });
});
