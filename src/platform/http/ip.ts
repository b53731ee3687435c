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

function expandIpv6(address: string): string[] {
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  const groups = [...left, ...Array(Math.max(missing, 0)).fill('0'), ...right];
  return groups.map((g) => (g.includes('.') ? g : g.toLowerCase().replace(/^0+(?=.)/, '')));
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
