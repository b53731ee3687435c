import net from 'node:net';

/**
 * The client address truncated for storage (contract §5): IPv4 to /24, IPv6 to /48.
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
