import type { Environment } from '../../platform/auth/scopes.ts';

export type NormalizedOrigin = { ok: true; origin: string } | { ok: false; reason: string };

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
/**
 * Spaces and control characters, anywhere: WHATWG URL would trim them from the ends and drop tabs and
 * newlines inside, so `" https://exa\tmple.com"` would parse as `https://example.com`. Not an origin.
 */
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The canonical form of an origin a channel allows: `scheme://host[:port]`, scheme and
 * host lower-cased, the default port dropped, an IDN host as punycode (WHATWG URL does the parsing).
 *
 * Rules for cases a caller might not expect:
 * - a space or control character anywhere, even leading or trailing, is refused (not trimmed: the
 *   value is taken as given, and URL parsing would silently drop some of them);
 * - one bare trailing "/" is tolerated and dropped (people paste `https://example.com/`); any other
 *   path, even "/." that URL would resolve away, is refused;
 * - an empty "?" or "#" and an empty userinfo ("https://@host") are refused like non-empty ones;
 * - a wildcard is exactly one leading `*.` label over a domain of at least two labels
 *   (`https://*.example.com`), never over an IP address or a bare top-level domain;
 * - http is allowed for `localhost` and `127.0.0.1` in every environment, and for any host on test
 *   channels; live channels need https elsewhere.
 */
export function normalizeOrigin(input: string, options: { environment: Environment }): NormalizedOrigin {
  const fail = (reason: string): NormalizedOrigin => ({ ok: false, reason });
  if (SPACE_OR_CONTROL.test(input)) return fail('an origin has no spaces or control characters');
  const raw = input;
  const scheme = SCHEME.exec(raw);
  if (!scheme) return fail('must start with http:// or https://');
  const protocol = scheme[1].toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') return fail('the scheme must be http or https');

  const afterScheme = raw.slice(scheme[0].length);
  const authorityEnd = afterScheme.search(/[/?#\\]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd === -1 ? '' : afterScheme.slice(authorityEnd);
  if (rest !== '' && rest !== '/') {
    return fail('an origin has no path, query or fragment');
  }
  if (authority.includes('@')) return fail('an origin has no credentials');

  let url: URL;
  try {
    url = new URL(`${protocol}://${authority}`);
  } catch {
    return fail('the host is not valid');
  }
  const host = url.hostname;
  if (!host) return fail('the host is missing');

  const wildcard = host.startsWith('*.');
  const domain = wildcard ? host.slice(2) : host;
  if (domain.includes('*')) return fail('only one leading wildcard label (*.example.com) is allowed');
  const isIp = IPV4.test(domain) || domain.startsWith('[');
  if (!isIp && domain.split('.').some((label) => label === '')) return fail('the host has an empty label');
  if (wildcard && (isIp || !domain.includes('.'))) {
    return fail('a wildcard must stand for one label of a domain, as in *.example.com');
  }

  if (protocol === 'http' && !LOCAL_HOSTS.has(host) && options.environment !== 'test') {
    return fail('http is allowed only for localhost and 127.0.0.1 on live channels; use https');
  }
  // url.host keeps a non-default port and drops the default one.
  return { ok: true, origin: `${protocol}://${url.host}` };
}
