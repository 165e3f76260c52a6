import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isInternalAddress, webhookUrlProblem } from '../../modules/order-api/url-policy.ts';
import { MarketplaceRejectedError } from '../../modules/shops/connector.ts';

/**
 * A WooCommerce store lives at an address the seller types, so every request to it follows the
 * rules of the order API's webhooks (url-policy.ts): https only, no user name in the URL, never a
 * host inside our network. The host is checked when the seller connects, before each operation
 * (for a clear error), and again on every address DNS returns when a socket is opened (so a name
 * rebound to 127.0.0.1 or 169.254.169.254 after connecting is never reached). `allowInternal`
 * (tests only) lifts all of it, for a mock on 127.0.0.1.
 */

export type WooResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: WooResolver = (hostname) => dns.promises.lookup(hostname, { all: true });

export interface WooStore {
  /** Where the REST API is: `${baseUrl}/wp-json/wc/v3` (the seller's spelling, trailing slash dropped). */
  readonly baseUrl: string;
  /** host[:port] and path, lower-cased, no scheme, no trailing slash: "shop.example.com" or "example.com/store". */
  readonly externalShopId: string;
}

/**
 * The store's id from any URL of its home (the store address, or X-WC-Webhook-Source, which is
 * WordPress's home_url('/')): host and path without the scheme, so a site whose home is still
 * configured as http:// matches the https address we call. Null when it is not a URL.
 */
export const wooShopId = (raw: string | undefined): string | null => {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return `${url.host}${url.pathname.replace(/\/+$/, '')}`.toLowerCase();
};

/** Checks and normalises the store address a seller typed; MarketplaceRejectedError (400) with the reason. */
export const parseWooStoreUrl = (raw: string, options: { allowInternal: boolean }): WooStore => {
  const problem = webhookUrlProblem(raw.trim(), { allowLocal: options.allowInternal });
  if (problem) throw new MarketplaceRejectedError(`Store address: ${problem}`, 400);
  const url = new URL(raw.trim());
  if (url.search) throw new MarketplaceRejectedError('Store address: enter it without ?query', 400);
  const baseUrl = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  return { baseUrl, externalShopId: wooShopId(baseUrl)! };
};

/**
 * Refuses (MarketplaceRejectedError 400) a store whose name resolves, now, to an address inside our
 * network, or does not resolve at all. Not the guard itself (the socket's lookup is): a clear
 * message instead of retried connection failures.
 */
export const checkWooStoreHost = async (
  baseUrl: string,
  options: { allowInternal: boolean; resolve: WooResolver },
): Promise<void> => {
  if (options.allowInternal) return;
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await options.resolve(host)).map((entry) => entry.address);
    } catch {
      throw new MarketplaceRejectedError(`The store address ${host} could not be found`, 400);
    }
  }
  if (addresses.length === 0 || addresses.some(isInternalAddress))
    throw new MarketplaceRejectedError(
      `The store address ${host} points inside a private network; use its public address`,
      400,
    );
};

export class WooAddressRefusedError extends Error {
  readonly code = 'EREFUSED';
  constructor(hostname: string) {
    super(`Refusing to connect to ${hostname}: internal address`);
    this.name = 'WooAddressRefusedError';
  }
}

export interface WooFetchOptions {
  readonly allowInternal: boolean;
  readonly resolve?: WooResolver;
  /** Bodies larger than this are cut off as an error. Default 32 MB (a page of 100 products). */
  readonly maxResponseBytes?: number;
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` for the shared http client over node:http(s) with the guarded DNS lookup: every
 * address a name resolves to is checked when the socket connects; one internal address refuses the
 * connection. Redirects are never followed (the client treats a 3xx as a refusal).
 */
export const createWooFetch = (options: WooFetchOptions): typeof fetch => {
  const resolve = options.resolve ?? systemResolver;
  const maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  const agents = {
    'https:': new https.Agent({ keepAlive: true }),
    'http:': new http.Agent({ keepAlive: true }),
  };

  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0 || addresses.some((entry) => isInternalAddress(entry.address)))
          return callback(new WooAddressRefusedError(hostname), '', 4);
        if ((lookupOptions as { all?: boolean }).all)
          return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };

  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!options.allowInternal) {
      const problem = webhookUrlProblem(url.href, { allowLocal: false });
      if (problem) throw new TypeError(`Refused ${url.origin}: ${problem}`);
    }
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!client) throw new TypeError(`Unsupported protocol ${url.protocol}`);
    const headers = Object.fromEntries(new Headers(init?.headers));
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))
      throw new TypeError('Only string and byte bodies are supported');
    const signal = init?.signal ?? undefined;

    return new Promise<Response>((resolvePromise, reject) => {
      const fail = (error: unknown): void => reject(signal?.aborted ? signal.reason : error);
      const request = client.request(
        url,
        {
          method: init?.method ?? 'GET',
          headers,
          agent: agents[url.protocol as 'https:' | 'http:'],
          signal,
          ...(options.allowInternal ? {} : { lookup: guardedLookup }),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) response.destroy(new Error(`Response larger than ${maxBytes} bytes`));
            else chunks.push(chunk);
          });
          response.on('error', fail);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(response.headers)) {
              if (value === undefined) continue;
              for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
            }
            const payload = NULL_BODY_STATUS.has(status) ? null : new Uint8Array(Buffer.concat(chunks));
            resolvePromise(
              new Response(payload, {
                status,
                statusText: response.statusMessage ?? '',
                headers: responseHeaders,
              }),
            );
          });
        },
      );
      request.on('error', fail);
      request.end(body ?? undefined);
    });
  }) as typeof fetch;
};
