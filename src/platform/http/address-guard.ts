import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';

/**
 * The SSRF guard of every request the service makes to an outside address (docs/decisions/webhooks.md):
 * webhook deliveries, tracker scans and the TCF vendor list mirror. A destination may only reach public
 * unicast addresses. Webhooks check it on the URL at creation and PATCH, and again on the resolved
 * addresses at delivery time, where the connection is then pinned to the vetted address (pinnedLookup:
 * no second DNS lookup to rebind).
 */

const v4 = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
] as const) {
  v4.addSubnet(prefix, bits, 'ipv4');
}

const v6 = new net.BlockList();
for (const [prefix, bits] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible (deprecated)
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d, RFC 2765): socket-API forms
  // that never appear on the wire; a URL or DNS answer using one is refused whatever it embeds.
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated by the operator's own network
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: tunnels to an address we cannot see
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local, includes AWS metadata fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  v6.addSubnet(prefix, bits, 'ipv6');
}

/** 16 bytes of an IPv6 address (valid input only). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const v4Tail = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4Tail) {
    const [a, b, c, d] = v4Tail[1].split('.').map(Number);
    text = `${text.slice(0, -v4Tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/**
 * The IPv4 address a routable IPv6 one carries by design (well-known NAT64, 6to4), if any: such an
 * address reaches that IPv4 host, so it is judged as that host. (Mapped and translated forms are
 * refused by the list above before this is asked.)
 */
function embeddedIpv4(bytes: number[]): string | null {
  const prefixIs = (p: number[]) => p.every((b, i) => bytes[i] === b);
  if (prefixIs([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return bytes.slice(12).join('.'); // 64:ff9b::/96
  if (prefixIs([0x20, 0x02])) return bytes.slice(2, 6).join('.'); // 2002::/16 (6to4)
  return null;
}

/** Why an address may not be a webhook target, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 4) return v4.check(address, 'ipv4') ? 'a non-public IPv4 address' : null;
  if (family === 6) {
    const bare = address.replace(/%.*$/, ''); // a zone index (fe80::1%eth0) says nothing about the range
    if (v6.check(bare, 'ipv6')) return 'a non-public IPv6 address';
    const bytes = ipv6Bytes(bare);
    const inner = embeddedIpv4(bytes);
    if (inner) return refusedAddressReason(inner) ? 'an IPv6 address embedding a non-public IPv4 one' : null;
    // Outside 2000::/3 every IPv6 address is reserved by the IETF or special-purpose (::/8 holds
    // forms such as ::ffff:0:0:7f00:1 that some stacks route to an embedded IPv4 host): only global
    // unicast space (and well-known NAT64, judged by its IPv4 host above) may be a target.
    if ((bytes[0] & 0xe0) !== 0x20) return 'a reserved IPv6 address';
    return null;
  }
  return 'not an IP address';
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: Lookup = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export class DestinationRefused extends Error {
  /** The host resolves to an address that is not public (as opposed to a bad URL or a failed lookup). */
  readonly nonPublic: boolean;
  constructor(message: string, options: { nonPublic?: boolean } = {}) {
    super(message);
    this.nonPublic = options.nonPublic ?? false;
  }
}

/**
 * What to add to a refusal of a non-public address, so a developer trying a local address learns
 * the way that exists (a setting, for test channels only) and that live ones have none.
 */
export function privateTargetHint(environment: 'test' | 'live', setting: string): string {
  return environment === 'test'
    ? `; for local development, start the service with ${setting}=true to let test channels reach private addresses`
    : '; live channels only reach public addresses';
}

/**
 * Time to resolve a destination's host. The system resolver retries a silent name server for tens
 * of seconds; a delivery attempt (or a request) does not wait that long for it.
 */
export const LOOKUP_TIMEOUT_MS = 5_000;

export interface GuardOptions {
  environment: 'test' | 'live';
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: test destinations may reach private addresses; live never. */
  allowPrivate: boolean;
  lookup?: Lookup;
  /** Default LOOKUP_TIMEOUT_MS. */
  lookupTimeoutMs?: number;
}

/** The lookup's answer, or a rejection with code ETIMEOUT after `ms`. */
function lookupWithin(lookup: Lookup, hostname: string, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEOUT' })),
      ms,
    );
  });
  return Promise.race([lookup(hostname), timeout]).finally(() => clearTimeout(timer));
}

const MAX_URL_LENGTH = 2048;

/** The parsed URL when its form is acceptable (scheme, no credentials); throws DestinationRefused. */
export function checkUrlForm(raw: string, environment: 'test' | 'live'): URL {
  if (raw.length > MAX_URL_LENGTH)
    throw new DestinationRefused(`the URL is over ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('the URL is not an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new DestinationRefused('the URL must use https (or http for test destinations)');
  }
  if (environment === 'live' && url.protocol !== 'https:') {
    throw new DestinationRefused('live destinations must use https');
  }
  // Credentials in a URL would be a secret shown in every list; the signature authenticates us instead.
  if (url.username || url.password) throw new DestinationRefused('the URL must not contain credentials');
  if (!url.hostname) throw new DestinationRefused('the URL has no host');
  return url;
}

/**
 * Resolves the URL's host and returns the addresses to connect to; throws DestinationRefused when
 * any of them is not public (a host with one private address among public ones is refused too).
 */
export async function vetDestination(
  raw: string,
  options: GuardOptions,
): Promise<{ url: URL; addresses: string[] }> {
  const url = checkUrlForm(raw, options.environment);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (net.isIP(host)) {
    addresses = [host];
  } else {
    try {
      const lookup = options.lookup ?? systemLookup;
      const answer = await lookupWithin(lookup, host, options.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS);
      addresses = answer.map((a) => a.address);
    } catch (error) {
      throw new DestinationRefused(
        `the host could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (addresses.length === 0) throw new DestinationRefused('the host has no addresses');
  }
  const private_ = options.allowPrivate && options.environment === 'test';
  if (!private_) {
    for (const address of addresses) {
      const reason = refusedAddressReason(address);
      if (reason) throw new DestinationRefused(`the host resolves to ${reason}`, { nonPublic: true });
    }
  }
  return { url, addresses };
}

/**
 * A lookup that answers with the addresses the guard vetted, so the connection goes exactly
 * there: a DNS answer that changes between the check and the connect (rebinding) is never used.
 */
export function pinnedLookup(addresses: string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, entries);
    else callback(null, entries[0].address, entries[0].family);
  }) as unknown as LookupFunction;
}
