import type { IncomingHttpHeaders } from 'node:http';
import { AppError, validationFailed } from '../../platform/http/errors.ts';
import type { AppCaller } from './sites.schemas.ts';
import type { Site } from './sites.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** On an app channel's public routes, the app that called (checked by the site's hook); else null. */
    consentApp: AppCaller | null;
  }
}

const PLATFORMS = new Set(['ios', 'android', 'other']);
/** Semantic Versioning 2.0.0's core with optional pre-release and build parts, bounded. */
const SEMVER = /^\d{1,9}\.\d{1,9}\.\d{1,9}(-[0-9A-Za-z.-]{1,64})?(\+[0-9A-Za-z.-]{1,64})?$/;

const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

/**
 * The caller of an app channel's public route: an app whose X-Consent-App is an active app id of
 * the channel. A browser's Origin is refused outright: an app channel has no origins, and a page
 * that could send its calls would pass for the app. An absent X-Consent-Platform reads as "other";
 * a malformed platform or SDK version is a 422, so the evidence never keeps a value it could not
 * stand behind.
 */
export function appCaller(site: Site, headers: IncomingHttpHeaders): AppCaller | AppError {
  if (headers.origin !== undefined) {
    return new AppError(
      'origin_not_allowed',
      'This is an app channel: browsers may not call it. A web page (a WebView too) uses a web channel of its origin; an app sends X-Consent-App instead of an Origin.',
    );
  }
  const appId = single(headers['x-consent-app']);
  if (appId === undefined || appId === '') {
    return new AppError(
      'app_not_allowed',
      'This is an app channel: send X-Consent-App with an active app id of the channel (its bundle id or package name).',
    );
  }
  if (!site.apps.includes(appId)) {
    return new AppError(
      'app_not_allowed',
      'X-Consent-App is not an active app id of this channel: register it with POST /v1/channels/:id/apps.',
    );
  }
  const platform = single(headers['x-consent-platform']) ?? 'other';
  if (!PLATFORMS.has(platform)) {
    return validationFailed(
      [{ path: '/headers/x-consent-platform', message: 'must be ios, android or other' }],
      'X-Consent-Platform must be ios, android or other.',
    );
  }
  const sdkVersion = single(headers['x-consent-sdk-version']) ?? null;
  if (sdkVersion !== null && !SEMVER.test(sdkVersion)) {
    return validationFailed(
      [{ path: '/headers/x-consent-sdk-version', message: 'must be a semantic version such as 1.4.0' }],
      'X-Consent-Sdk-Version must be a semantic version such as 1.4.0.',
    );
  }
  return { appId, platform: platform as AppCaller['platform'], sdkVersion };
}
