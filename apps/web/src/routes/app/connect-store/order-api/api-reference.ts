/*
 * The API reference is a page the server serves, not a route of this app: plain links, in a new tab.
 * It opens on the guide (getting started, the webhooks and how to verify them); `#/order-api` opens
 * the order API's calls instead.
 */
export const API_REFERENCE_URL = '/api/docs';
export const ORDER_API_CALLS_URL = '/api/docs#/order-api';
