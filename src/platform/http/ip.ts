import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import proxyAddr from '@fastify/proxy-addr';

/**
 * The client address truncated for storage: IPv4 to /24, IPv6 to /48.
 * Enough to tell networks apart, not enough to identify a household.
 */
export function ipPrefix(address: string | undefined): string | null {
  if (!address) return null;
  const mapped = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (net.isIPv4(mapped)) {
    const [a, b, c] = mapped.split('.');
    return `${a}.${b}.${c}.0/24`;
  }
  if (net.isIPv6(mapped)) {
    const groups = expandIpv6(mapped);
    return `${groups.slice(0, 3).join(':')}::/48`;
  }
  return null;
}

/**
 * The eight groups of a valid IPv6 address (no zone), lower case without leading zeros; a trailing
 * dotted IPv4 part becomes its two groups.
 */
function expandIpv6(address: string): string[] {
  const [head, tail] = address.split('::');
  const split = (part: string | undefined) =>
    part ? part.split(':').flatMap((g) => (g.includes('.') ? ipv4Groups(g) : [g])) : [];
  const left = split(head);
  const right = split(tail);
  const missing = 8 - left.length - right.length;
  const groups = [...left, ...Array(Math.max(missing, 0)).fill('0'), ...right];
  return groups.map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

function ipv4Groups(dotted: string): string[] {
  const [a, b, c, d] = dotted.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

/**
 * Who a rate limit counts an address as: an IPv4 address itself; an IPv6 address by its /64 (the
 * smallest network a subscriber is given, whose other addresses it can use at will), written
 * `2001:db8:1:2::/64` whatever the notation; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as a
 * dual-stack socket reports IPv4 clients) as that IPv4 address. Anything else is counted as given.
 * IPv4 answers without parsing: this runs on every public request.
 */
export function rateLimitClient(address: string | undefined): string | undefined {
  if (address === undefined || !address.includes(':')) return address;
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  if (!net.isIPv6(bare)) return address;
  const groups = expandIpv6(bare);
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [high, low] = [parseInt(groups[6], 16), parseInt(groups[7], 16)];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** Which hops may set X-Forwarded-For, as Fastify's `trustProxy` function form; false trusts none. */
export type TrustProxy = false | ((address: string, hop: number) => boolean);

/**
 * TRUST_PROXY (config.ts) as one function, given to Fastify and used by the routes answered before
 * Fastify (platform/http/fast-path-server.ts), so both see the same client address.
 * (A hop count as proxy-addr reads it: the nearest n hops are proxies.)
 */
export function trustProxyFunction(setting: boolean | number | string[]): TrustProxy {
  if (setting === false) return false;
  if (setting === true) return () => true;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyAddr.compile(setting);
}

/** The client address exactly as Fastify's `request.ip` computes it under the same trust. */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string | undefined {
  if (!trust) return req.socket.remoteAddress;
  const chain = proxyAddr.all(req, trust);
  return chain[chain.length - 1];
}

/** The host as Fastify's `request.host` computes it: X-Forwarded-Host only from a trusted proxy. */
export function requestHost(req: IncomingMessage, trust: TrustProxy): string {
  const forwarded = req.headers['x-forwarded-host'];
  if (forwarded && trust && req.socket.remoteAddress !== undefined && trust(req.socket.remoteAddress, 0)) {
    const value = Array.isArray(forwarded) ? forwarded[forwarded.length - 1] : forwarded;
    return value.slice(value.lastIndexOf(',') + 1).trim();
  }
  return req.headers.host ?? '';
}

/** The scheme as Fastify's `request.protocol` computes it: X-Forwarded-Proto only from a trusted proxy. */
export function requestProtocol(req: IncomingMessage, trust: TrustProxy): 'http' | 'https' {
  const forwarded = req.headers['x-forwarded-proto'];
  if (forwarded && trust && req.socket.remoteAddress !== undefined && trust(req.socket.remoteAddress, 0)) {
    const value = Array.isArray(forwarded) ? forwarded[forwarded.length - 1] : forwarded;
    return value.slice(value.lastIndexOf(',') + 1).trim() === 'https' ? 'https' : 'http';
  }
  return (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
}
