import { Type } from '@sinclair/typebox';
import { SiteConfig } from '../channels/channels.schemas.ts';

export const SiteParams = Type.Object({
  siteKey: Type.String({ minLength: 1, maxLength: 100, examples: ['site_live_4kF9x2mQ7pL1vN8sR3tY6wQa'] }),
});

export const Snippet = Type.Object(
  {
    html: Type.String({
      description:
        'Paste into every page, before other tags that need consent: the first-party form when the channel has a firstPartyPath, else the direct one',
    }),
    firstPartyHtml: Type.Union([Type.String(), Type.Null()], {
      description:
        'The snippet loading sdk.js through the channel’s firstPartyPath on the page’s own origin (a root-relative URL); null when the channel has none',
    }),
    directHtml: Type.String({ description: 'The snippet loading sdk.js from the service’s own address' }),
  },
  { $id: 'Snippet' },
);

/** What the banner shows: the snapshot of the channel's current configVersion, for the visitor's region. */
export const SiteConfigSchema = SiteConfig;

/**
 * `region` on the config and preferences requests of a test channel: the visitor's
 * region as declared by the page (previews, tests). Live channels ignore it.
 */
export const RegionQuery = Type.Object({
  region: Type.Optional(
    Type.String({
      pattern: '^[A-Z]{2}(-[A-Z0-9]{1,3})?$',
      maxLength: 6,
      description:
        'Test channels only: the visitor region to act as, an assigned ISO 3166-1 alpha-2 or ISO 3166-2 code such as FR or US-CA (another code: 422); ignored on live channels, where only its form is checked',
    }),
  ),
});

/**
 * The decision cookie on an answer that came through the channel's first-party path
 * (docs/guides/keep-the-choice.md); such an answer is never cached.
 */
export const DecisionCookieHeaders = {
  'Set-Cookie': Type.Optional(
    Type.String({
      description:
        'Through the first-party path only: `cs_consent_<siteKey>=<the decision, as the SDK stores it>; Max-Age=<consentMaxAgeDays × 86400>; Path=/; SameSite=Lax` (`Secure` on https, `Domain` per the channel’s cookieDomain)',
    }),
  ),
  'Cache-Control': Type.Optional(
    Type.String({ description: '`private, no-store` when the answer sets the cookie' }),
  ),
};

/** What an app says of itself on every public call of an app channel (docs/guides/apps.md). */
export interface AppCaller {
  appId: string;
  platform: 'ios' | 'android' | 'other';
  /** The client's version as sent (semver), or null when it sent none. */
  sdkVersion: string | null;
}
