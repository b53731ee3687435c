import { declaredRegionQuery } from '../../../sdk/src/declared-region.ts';
import type { ConsentClientOptions, FetchLike, FetchResponse } from './types.ts';
import { SDK_VERSION } from './version.ts';

/** How the client talks to the channel's public routes: the URLs, the app's headers, and fetch. */
export interface Transport {
  /** `…/v1/public/sites/<siteKey>/<path>` with the declared region's query. */
  url(path: string): string;
  /** GET a path of the service (`/v1/…`, such as the config's vendor list URL) with the app's headers. */
  get(path: string): Promise<FetchResponse>;
  send(
    path: string,
    method: 'GET' | 'POST',
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<FetchResponse>;
}

/**
 * An app sends no Origin: an app channel knows it by X-Consent-App, and records the platform and
 * this client's version with each decision. Without an appId (a web channel, in a browser) the
 * browser's Origin does that, and no app header is sent.
 */
function appHeaders(options: ConsentClientOptions): Record<string, string> {
  if (!options.appId) return {};
  return {
    'X-Consent-App': options.appId,
    'X-Consent-Platform': options.platform ?? 'other',
    'X-Consent-Sdk-Version': SDK_VERSION,
  };
}

export function createTransport(options: ConsentClientOptions): Transport {
  const base = options.baseUrl.replace(/\/+$/, '');
  const site = `${base}/v1/public/sites/${encodeURIComponent(options.siteKey)}`;
  // The declared region (test channels only) is the web SDK's rule, in one place.
  const query = options.region ? declaredRegionQuery(options.siteKey, options.region) : '';
  if (options.region && !query)
    console.warn(`[consent-service] region "${options.region}" ignored: test channels only, ISO 3166 codes`);
  const headers = appHeaders(options);
  // Looked up at call time: an app may install its fetch (or a polyfill) after creating the client.
  const call: FetchLike = (url, init) => (options.fetch ?? fetch)(url, init);
  return {
    url: (path) => `${site}/${path}${query}`,
    get: (path) => call(`${base}${path}`, { method: 'GET', headers }),
    send(path, method, body, extra = {}) {
      const json: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
      return call(`${site}/${path}${query}`, {
        method,
        headers: { ...headers, ...json, ...extra },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    },
  };
}

/**
 * A random hex id of `bytes` bytes (subject ids, Idempotency-Keys). Hermes has no crypto unless the
 * app installs react-native-get-random-values; without it the id is still unique enough for an
 * idempotency key and a pseudonymous device id, which are not secrets.
 */
export function randomId(bytes = 16): string {
  const buf = new Uint8Array(bytes);
  if (typeof crypto !== 'undefined' && crypto?.getRandomValues) crypto.getRandomValues(buf);
  else for (let i = 0; i < bytes; i++) buf[i] = Math.floor(Math.random() * 256);
  let out = '';
  for (const b of buf) out += (b < 16 ? '0' : '') + b.toString(16);
  return out;
}
