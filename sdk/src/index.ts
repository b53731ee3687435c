import { createConsent } from './consent.ts';
import { locateSelf } from './locate.ts';
import type { SiteConfig } from './types.ts';

/**
 * The snippet's sdk.js: finds its own script element, takes the config the service put in front of
 * this bundle (src/modules/sites/sdk-with-config.ts: the site's config for this visitor's region, so
 * the banner needs no second request), and starts the SDK as `window.ConsentService`.
 */
function boot() {
  const w = window as unknown as {
    ConsentService?: unknown;
    __consentServiceConfigs?: Record<string, SiteConfig>;
  };
  if (w.ConsentService) return; // the snippet pasted twice: one SDK is enough
  const self = locateSelf();
  if (!self) {
    console.warn('[consent-service] cannot find the sdk.js script element; nothing will be activated');
    return;
  }
  const inline = w.__consentServiceConfigs?.[self.siteKey];
  if (inline) delete w.__consentServiceConfigs![self.siteKey];
  w.ConsentService = createConsent({
    baseUrl: self.base,
    siteKey: self.siteKey,
    region: self.region,
    config: inline,
    identityToken: self.identityToken,
  });
}

boot();
