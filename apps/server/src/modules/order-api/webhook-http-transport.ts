import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isInternalAddress } from './url-policy.ts';
import type { HostResolver } from './webhook-endpoint-service.ts';
import type { WebhookTransport } from './webhook-delivery-service.ts';

/**
 * POSTs webhooks with node:http(s): no redirects are followed (a 3xx is just a failed attempt),
 * the whole exchange is bounded by the timeout, the response body is discarded (at most 64 KB
 * read). With `blockInternal`, every address DNS returns is checked when connecting, so a name
 * that resolves into our network (or is rebound to it after it was saved) is never reached.
 */
export function createHttpWebhookTransport(options: { blockInternal: boolean }): WebhookTransport {
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const refused = addresses.find((entry) => isInternalAddress(entry.address));
      if (refused || addresses.length === 0) {
        return callback(Object.assign(new Error(`Refusing to connect to ${hostname}: internal address`), { code: 'EREFUSED' }), '', 4);
      }
      if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

  return {
    post(url, headers, body, { timeoutMs }) {
      return new Promise((resolve, reject) => {
        const target = new URL(url);
        const client = target.protocol === 'https:' ? https : http;
        const request = client.request(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            signal: AbortSignal.timeout(timeoutMs),
            ...(options.blockInternal ? { lookup: guardedLookup } : {}),
          },
          (response) => {
            let read = 0;
            response.on('data', (chunk: Buffer) => {
              read += chunk.length;
              if (read > 64 * 1024) response.destroy();
            });
            response.on('error', () => resolve({ status: response.statusCode ?? 0 }));
            response.on('close', () => resolve({ status: response.statusCode ?? 0 }));
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    },
  };
}

export const resolveHost: HostResolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true })).map((entry) => entry.address);
