/**
 * The `?region=` query for a declared region (`data-region="US-CA"`), sent on test channels only:
 * the service honours it there alone (for previews and tests), and a live page must not look as if
 * it could choose its visitors' law. A code that is not a country or subdivision is not sent, so a
 * typo costs a console warning, not a config the service refuses.
 */
export function regionQuery(siteKey: string, region: string | null): string {
  if (region === null) return '';
  const query = declaredRegionQuery(siteKey, region);
  if (!query)
    console.warn(`[consent-service] data-region="${region}" ignored: test channels only, ISO 3166 codes`);
  return query;
}

/** Whether a site key is a test channel's: only there a declared region, and the developer panel, apply. */
export const onTestChannel = (siteKey: string) => siteKey.startsWith('site_test_');

/** The rule itself, shared with the headless core (packages/core): the query, or '' when not sent. */
export function declaredRegionQuery(siteKey: string, region: string): string {
  const code = region.trim().toUpperCase();
  return onTestChannel(siteKey) && /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(code) ? `?region=${code}` : '';
}
