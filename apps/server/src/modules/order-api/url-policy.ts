import { BlockList, isIP } from 'node:net';

/**
 * Where we may send a seller's webhooks, in every mode (development included: any new account
 * may set a webhook there, and the deliveries list would tell it which internal ports answer):
 * only https, and never to an address inside our own network (SSRF): loopback, private,
 * link-local (cloud metadata), CGNAT, multicast and reserved ranges, checked on the URL and
 * again on every address DNS returns at delivery time (so a name that later resolves inside is
 * refused too). Only ALLOW_LOCAL_WEBHOOK_RECEIVERS=true (refused in production) lifts this, for a
 * test receiver on this machine.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True for an address a webhook must never reach from a production server. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const lower = address.toLowerCase();
    // IPv4-mapped (::ffff:a.b.c.d): judge the IPv4 address inside.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    if (lower.startsWith('::ffff:')) return true;
    return blocked.check(lower, 'ipv6');
  }
  return true; // not an address at all: refuse
}

export interface WebhookUrlPolicy {
  /** Off (always in production): https only, public hosts only. On: http and any host too (local testing). */
  readonly allowLocal: boolean;
}

/** Returns a readable reason when the URL may not be used, or null when it may. */
export function webhookUrlProblem(raw: string, policy: WebhookUrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Enter a full URL, like https://example.com/webhooks/layerline';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The URL must start with https://';
  if (!policy.allowLocal && url.protocol !== 'https:') return 'The URL must use https://';
  if (url.username || url.password) return 'The URL must not contain a user name or password';
  if (url.hash) return 'The URL must not contain a #fragment';
  if (policy.allowLocal) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) {
    return 'The URL must point to a public host';
  }
  if (isIP(host) && isInternalAddress(host)) return 'The URL must point to a public address';
  if (!isIP(host) && !host.includes('.')) return 'The URL must point to a public host';
  return null;
}
