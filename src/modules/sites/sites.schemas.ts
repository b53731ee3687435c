import { Type } from '@sinclair/typebox';
import { ApiDate } from '../../platform/http/schemas.ts';
import { SiteConfig } from '../channels/channels.schemas.ts';
import { DecisionValue, Source } from '../evidence/evidence.schemas.ts';

export const SiteParams = Type.Object({
  siteKey: Type.String({ minLength: 1, maxLength: 100, examples: ['site_live_4kF9x2mQ7pL1vN8sR3tY6wQa'] }),
});

/** A language tag as browsers report it (`navigator.language`): `en`, `pt-BR`, `zh-Hant-TW`, `es-419`. */
const LanguageTag = Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$', maxLength: 35 });

export const PreferencesBody = Type.Object(
  {
    subjectId: Type.String({
      minLength: 8,
      maxLength: 128,
      description: "The visitor's opaque id kept by the SDK; only its keyed pseudonym is stored",
    }),
    decisions: Type.Record(Type.String(), DecisionValue, {
      maxProperties: 200,
      description:
        'Purpose key → decision. Required purposes left out are granted; others left out are denied.',
    }),
    configVersion: Type.Integer({ minimum: 1, description: 'The config version the visitor was shown' }),
    source: Type.Optional(Source),
    language: Type.Optional(LanguageTag),
    gpc: Type.Optional(
      Type.Boolean({
        description:
          'Global Privacy Control was on (so is a `Sec-GPC: 1` request header): gpcOptOut purposes are recorded as denied, except an explicit choice in an opt-out region',
      }),
    ),
    gppString: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'The IAB GPP string of the decision (channels with a gppCmpId only: on others it is a 422, never decoded); one that does not decode, or whose vendor ranges would expand past the service’s bounds, is a 422',
      }),
    ),
    identityToken: Type.Optional(
      Type.String({
        description:
          'A signed-in visitor’s identity token (docs/guides/signed-in-visitors.md): the decision is then recorded for the account (subjectKind "account", the account’s pseudonym), not the device. A token that is not accepted is a 401 invalid_identity_token and nothing is recorded',
      }),
    ),
    tcString: Type.Optional(
      Type.String({
        minLength: 1,
        // The tcf module's bound (tc-string-bounds.ts): a real string is well under 2,000 characters.
        maxLength: 10_000,
        description:
          "The IAB TC string of the decision (TCF channels, opt-in regions): it must decode, carry the channel's CMP id and a vendor list version the service holds, else 422",
      }),
    ),
  },
  { additionalProperties: false },
);

export const PreferencesReceipt = Type.Object(
  {
    id: Type.String({ examples: ['evt_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    recordedAt: ApiDate,
    receipt: Type.Object({
      hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
      url: Type.String({
        format: 'uri',
        description:
          "The visitor's receipt: its token is a capability only this answer carries; keep it private",
      }),
    }),
  },
  { $id: 'PreferencesReceipt' },
);

export const Snippet = Type.Object(
  {
    html: Type.String({ description: 'Paste into every page, before other tags that need consent' }),
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
      maxLength: 10,
      description:
        'Test channels only: the visitor region to act as, e.g. FR or US-CA; ignored on live channels',
    }),
  ),
});
