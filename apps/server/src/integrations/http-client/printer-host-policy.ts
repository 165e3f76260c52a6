import dns from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a printer connection may reach (docs/printers.md, "Network policy").
 *
 * Printers live on the farm's own network, so unlike seller webhooks (order-api/url-policy.ts,
 * public hosts only) private addresses are the normal case here: 10/8, 172.16/12, 192.168/16,
 * CGNAT 100.64/10 (Tailscale and similar VPNs), IPv6 ULA fc00::/7, and public addresses too (a
 * printer reached through a VPN or a forwarded port). Only admins can set a printer's address.
 *
 * Always refused, because no printer lives there and something worth protecting may:
 * - link-local 169.254/16 and fe80::/10 (cloud metadata services: 169.254.169.254);
 * - "this network" 0/8 and ::, multicast 224/4 and ff00::/8, reserved 240/4 and broadcast;
 * - loopback 127/8 and ::1 (this machine: our own database, admin ports), unless the policy
 *   allows it (`allowLoopback`, for a printer host on the same machine and for tests).
 * Names are resolved and every address DNS returns is checked before each call.
 */
export interface PrinterHostPolicy {
  readonly allowLoopback: boolean;
}

const alwaysBlocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  alwaysBlocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  alwaysBlocked.addSubnet(network, prefix, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** A readable reason when a printer may not be reached at this IP address, or null. */
export const printerAddressProblem = (address: string, policy: PrinterHostPolicy): string | null => {
  let candidate = address.replace(/^\[|\]$/g, '').toLowerCase();
  let family = isIP(candidate);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(candidate);
  if (mapped) {
    candidate = mapped[1]!;
    family = 4;
  }
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (alwaysBlocked.check(candidate, type)) {
    return `${address} is a link-local, multicast or reserved address, where no printer can be`;
  }
  if (!policy.allowLoopback && loopback.check(candidate, type)) {
    return `${address} is this server itself; a printer must be another machine on the network`;
  }
  return null;
};

/** A readable reason when the printer URL may not be used (checked on the URL alone), or null. */
export const printerUrlProblem = (raw: string, policy: PrinterHostPolicy): string | null => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Enter the printer’s full address, like http://192.168.1.50';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'The address must start with http:// or https://';
  if (url.username || url.password) return 'The address must not contain a user name or password';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host)) return printerAddressProblem(host, policy);
  if (!policy.allowLoopback && (host === 'localhost' || host.endsWith('.localhost'))) {
    return `${host} is this server itself; a printer must be another machine on the network`;
  }
  return null;
};

export type HostLookup = (hostname: string) => Promise<readonly string[]>;

export const systemLookup: HostLookup = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * A lookup that gives up after `ms` (a rejection: checkPrinterHost then leaves the name to the call,
 * which checks it again). Used when a printer is saved, so an admin's form never waits on slow DNS.
 */
export const lookupWithin =
  (ms: number, lookup: HostLookup = systemLookup): HostLookup =>
  (hostname) =>
    Promise.race([
      lookup(hostname),
      new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`no DNS answer for ${hostname} within ${ms} ms`)), ms).unref()),
    ]);

/**
 * Resolves the URL's host and checks every address. Returns a reason when the call must not be
 * made, or null. A name that does not resolve is left to the call itself (which reports it as
 * unreachable). Residual risk, accepted and documented: the HTTP stack resolves the name again
 * when it connects, so a DNS answer that changes in between (rebinding) is not seen; the address
 * is set by an admin, and the always-refused ranges are refused on the literal address as well.
 */
export const checkPrinterHost = async (
  url: URL,
  policy: PrinterHostPolicy,
  lookup: HostLookup = systemLookup,
): Promise<string | null> => {
  const staticProblem = printerUrlProblem(url.href, policy);
  if (staticProblem) return staticProblem;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return null;
  let addresses: readonly string[];
  try {
    addresses = await lookup(host);
  } catch {
    return null;
  }
  for (const address of addresses) {
    const problem = printerAddressProblem(address, policy);
    if (problem) return `${host} resolves to ${problem}`;
  }
  return null;
};
