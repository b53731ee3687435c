import { parseApiKeySecret } from './api-key-format.ts';

/**
 * The `detail` of a refused Authorization header: what was wrong with it and how to send the key.
 * Nothing of the key is ever echoed; a scheme name is, when it is a short token (Basic, Token).
 */

const HOW = 'send the key as `Authorization: Bearer <key>` (the word Bearer, one space, then the key)';

/** An RFC 9110 auth-scheme: a token. Only short ones are named back, so no secret can be. */
const SCHEME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,19}$/;

/** A header that is not `Bearer <one token>`. */
export function schemeDetail(header: string): string {
  const [first, ...rest] = header.trim().split(/\s+/);
  if (/^svc_(test|live)_/.test(first ?? ''))
    return `The Authorization header holds a bare API key, without its scheme: ${HOW}.`;
  if (/^bearer$/i.test(first ?? ''))
    return rest.length === 0
      ? `The Authorization header says Bearer but carries no key: ${HOW}.`
      : `The Authorization header carries more than one value after Bearer: ${HOW}, with nothing after it.`;
  if (first && SCHEME.test(first) && rest.length > 0)
    return `The Authorization header uses the ${first} scheme, which this API does not take: ${HOW}.`;
  return `The Authorization header is not a Bearer credential: ${HOW}.`;
}

/** A Bearer token that no active key matches: malformed (checked without a lookup) or not known. */
export function refusedKeyDetail(secret: string): string {
  if (!parseApiKeySecret(secret))
    return (
      'The Bearer token is not a well-formed API key (svc_test_ or svc_live_, then 38 letters and digits, ' +
      'the last six a checksum): check that the whole key was copied, with nothing added.'
    );
  return (
    'The API key is unknown, revoked or expired: use an active key (the console lists your keys with ' +
    'their status and issues new ones; `npx consent-service keys create` does too).'
  );
}
