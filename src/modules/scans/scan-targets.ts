import {
  DestinationRefused,
  type Lookup,
  privateTargetHint,
  refusedAddressReason,
  vetDestination,
} from '../../platform/http/address-guard.ts';
import { AppError } from '../../platform/http/errors.ts';
import { originMatches } from '../channels/origins.service.ts';

/** Pages one scan may visit; a channel with more origins is scanned a page per origin, in order, up to this. */
export const MAX_SCAN_URLS = 10;

const refuse = (detail: string, message: string) =>
  new AppError('invalid_origin', detail, { errors: [{ path: '/url', message }] });

/**
 * The pages a scan visits: the given url, which must be on one of the channel's
 * active origins, or else the root of each active origin that has no wildcard (a wildcard names no
 * page to load). Throws 422 invalid_origin.
 */
export function scanUrls(activeOrigins: string[], url: string | undefined): string[] {
  if (url === undefined) {
    const roots = activeOrigins.filter((origin) => !origin.includes('*')).map((origin) => `${origin}/`);
    if (roots.length === 0) {
      throw refuse(
        'The channel has no active origin without a wildcard to scan; add one, or give the url of a page.',
        'required: the channel has no origin to scan by default',
      );
    }
    return roots.slice(0, MAX_SCAN_URLS);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('The url is not an absolute http(s) URL.', 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw refuse('The url is not an absolute http(s) URL.', 'must be an absolute http(s) URL');
  }
  if (parsed.username || parsed.password) {
    throw refuse('The url must not contain credentials.', 'must not contain credentials');
  }
  if (!activeOrigins.some((origin) => originMatches(origin, parsed.origin))) {
    throw refuse(
      `The url is not on one of the channel's active origins (${parsed.origin}).`,
      "must be on one of the channel's active origins",
    );
  }
  parsed.hash = '';
  return [parsed.href];
}

export interface AddressPolicy {
  environment: 'test' | 'live';
  /** SCAN_ALLOW_PRIVATE_TARGETS: test channels may reach private addresses (local development); live never. */
  allowPrivate: boolean;
  lookup?: Lookup;
}

/** Whether the browser may connect to `ip` (the webhook destinations' address rules). */
export function addressAllowed(policy: AddressPolicy): (ip: string) => boolean {
  if (policy.allowPrivate && policy.environment === 'test') return () => true;
  return (ip) => refusedAddressReason(ip) === null;
}

/** The request-time check: every page's host must resolve to addresses a scan may reach. */
export async function vetScanUrls(urls: string[], policy: AddressPolicy): Promise<void> {
  for (const url of urls) {
    try {
      await vetDestination(url, {
        environment: 'test', // the scheme rule of webhooks does not apply: origins have their own
        allowPrivate: policy.allowPrivate && policy.environment === 'test',
        lookup: policy.lookup,
      });
    } catch (error) {
      if (!(error instanceof DestinationRefused)) throw error;
      const hint = error.nonPublic ? privateTargetHint(policy.environment, 'SCAN_ALLOW_PRIVATE_TARGETS') : '';
      throw refuse(`${new URL(url).origin} cannot be scanned: ${error.message}${hint}.`, error.message);
    }
  }
}
