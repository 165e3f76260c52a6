/**
 * Every GraphQL document the Shopify connector sends (Admin API 2026-01). Kept together so the
 * contract test validates each one against Shopify's published schema
 * (/work/shared/contracts/shopify/admin_schema_2026-01_public.graphql).
 */

export const SHOP_QUERY = /* GraphQL */ `
  query LayerlineShop {
    shop {
      id
      name
      myshopifyDomain
      currencyCode
    }
  }
`;

/** Variants of active products, 250 a page; SKUs live on variants. */
export const PRODUCT_VARIANTS_QUERY = /* GraphQL */ `
  query LayerlineProductVariants($after: String) {
    productVariants(first: 250, after: $after, query: "product_status:active") {
      nodes {
        id
        sku
        title
        price
        image {
          url
        }
        product {
          id
          title
          status
          onlineStoreUrl
          hasOnlyDefaultVariant
          featuredMedia {
            preview {
              image {
                url
              }
            }
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

/** Orders changed since a time ($query = "updated_at:>='…'"), oldest change first. */
export const ORDERS_QUERY = /* GraphQL */ `
  query LayerlineOrders($query: String!, $after: String) {
    orders(first: 50, after: $after, query: $query, sortKey: UPDATED_AT) {
      nodes {
        id
        name
        createdAt
        updatedAt
        cancelledAt
        email
        currencyCode
        totalPriceSet {
          shopMoney {
            amount
            currencyCode
          }
        }
        shippingAddress {
          name
          company
          address1
          address2
          city
          provinceCode
          province
          zip
          countryCodeV2
          phone
        }
        lineItems(first: 100) {
          nodes {
            id
            sku
            title
            quantity
            requiresShipping
            originalUnitPriceSet {
              shopMoney {
                amount
                currencyCode
              }
            }
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

/** The order's fulfillment orders: fulfilment is created against the open ones. */
export const FULFILLMENT_ORDERS_QUERY = /* GraphQL */ `
  query LayerlineFulfillmentOrders($id: ID!) {
    order(id: $id) {
      id
      fulfillmentOrders(first: 20) {
        nodes {
          id
          status
        }
      }
    }
  }
`;

export const FULFILLMENT_CREATE_MUTATION = /* GraphQL */ `
  mutation LayerlineFulfillmentCreate($fulfillment: FulfillmentInput!) {
    fulfillmentCreate(fulfillment: $fulfillment) {
      fulfillment {
        id
        status
      }
      userErrors {
        field
        message
      }
    }
  }
`;

/**
 * One webhook subscription (run once per topic after a shop connects). 2026-01: the endpoint is
 * `uri` (String; `callbackUrl` is deprecated); payloads as JSON, which the intake verifies raw.
 */
export const WEBHOOK_SUBSCRIPTION_CREATE_MUTATION = /* GraphQL */ `
  mutation LayerlineWebhookSubscriptionCreate($topic: WebhookSubscriptionTopic!, $uri: String!) {
    webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri, format: JSON }) {
      webhookSubscription {
        id
        topic
        uri
      }
      userErrors {
        field
        message
      }
    }
  }
`;

/** The topics Layerline subscribes to (WebhookSubscriptionTopic values; X-Shopify-Topic spells them orders/create …). */
export const SHOPIFY_WEBHOOK_TOPICS = [
  'ORDERS_CREATE',
  'ORDERS_UPDATED',
  'ORDERS_CANCELLED',
  'APP_UNINSTALLED',
] as const;

/**
 * Checkout rates (issue 24; docs/checkout-rates.md): our callback registered as the shop's carrier
 * service, active, with service discovery so the merchant can preview rates in the Shopify admin.
 */
export const CARRIER_SERVICE_CREATE_MUTATION = /* GraphQL */ `
  mutation LayerlineCarrierServiceCreate($input: DeliveryCarrierServiceCreateInput!) {
    carrierServiceCreate(input: $input) {
      carrierService {
        id
        name
        callbackUrl
        active
      }
      userErrors {
        field
        message
      }
    }
  }
`;

/** Removes our carrier service when the seller turns checkout rates off. */
export const CARRIER_SERVICE_DELETE_MUTATION = /* GraphQL */ `
  mutation LayerlineCarrierServiceDelete($id: ID!) {
    carrierServiceDelete(id: $id) {
      deletedId
      userErrors {
        field
        message
      }
    }
  }
`;

export const SHOPIFY_DOCUMENTS = {
  SHOP_QUERY,
  PRODUCT_VARIANTS_QUERY,
  ORDERS_QUERY,
  FULFILLMENT_ORDERS_QUERY,
  FULFILLMENT_CREATE_MUTATION,
  WEBHOOK_SUBSCRIPTION_CREATE_MUTATION,
  CARRIER_SERVICE_CREATE_MUTATION,
  CARRIER_SERVICE_DELETE_MUTATION,
} as const;
