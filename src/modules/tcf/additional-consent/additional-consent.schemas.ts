import { Type } from '@sinclair/typebox';

/**
 * A channel's Google Additional Consent (docs/guides/tcf.md, "Google Additional Consent"): the ad
 * technology providers of Google's ATP list that are not on IAB's vendor list and that visitors are
 * asked about beside the TCF vendors. null: none (no AC string).
 */
export const GoogleAdditionalConsent = Type.Union(
  [
    Type.Object(
      {
        providerIds: Type.Array(Type.Integer({ minimum: 1, maximum: 999_999_999 }), {
          minItems: 1,
          maxItems: 1000,
          uniqueItems: true,
          description: 'Provider ids of Google’s Ad Tech Providers list',
        }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'Google Additional Consent: the ATP providers (not on IAB’s vendor list) visitors are asked about; the layers list them and tcf.js makes a version 2 AC string (addtlConsent in TCData). null (the default): none',
  },
);

/** The site config's Additional Consent: the providers with the names and policies the layers show. */
export const SiteGoogleAdditionalConsent = Type.Union(
  [
    Type.Object({
      providerIds: Type.Array(Type.Integer()),
      providers: Type.Optional(
        Type.Array(
          Type.Object({
            id: Type.Integer(),
            name: Type.String(),
            policyUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
          }),
          {
            description:
              'The providers as Google’s ATP list (GOOGLE_ATP_URL) named them when this config version was made; a provider missing here is shown by its id',
          },
        ),
      ),
    }),
    Type.Null(),
  ],
  {
    description: 'Google Additional Consent (tcf.js makes the AC string and lists the providers); null: none',
  },
);

export const AddtlConsent = Type.String({
  minLength: 1,
  maxLength: 20_000,
  description:
    'The Google Additional Consent string of the decision (version 2: `2~<consented ids, dot-separated>~dv.<disclosed ids, dot-separated>`), sent with a tcString on a channel with googleAdditionalConsent. A string in another format is a 422 with code ac_invalid; a provider the channel did not choose, ac_provider_not_selected; sent without a tcString or to a channel without googleAdditionalConsent, ac_not_expected',
});
