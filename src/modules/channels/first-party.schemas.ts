import { Type } from '@sinclair/typebox';

/**
 * The channel fields that keep a visitor's choice (docs/guides/keep-the-choice.md): the first-party
 * path, the cookie's domain, handoffs to sibling domains and imports from the previous CMP. Their
 * rules beyond these shapes: first-party-settings.ts and cmp-imports.ts.
 */

/** Where the site forwards the service's public calls on its own origin (docs/guides/keep-the-choice.md). */
export const FIRST_PARTY_PATH_PATTERN = '^/[a-z0-9][a-z0-9/_-]{0,63}$';
export const FirstPartyPath = Type.Union(
  [Type.String({ pattern: FIRST_PARTY_PATH_PATTERN, maxLength: 65, examples: ['/consent'] }), Type.Null()],
  {
    description:
      "A path on the site's own origins that its web server or CDN forwards to the service (`<origin><firstPartyPath>/…` to the service's `/…`, with X-Forwarded-Host): the snippet then loads the SDK from it, every public call goes through it, and the service sets the decision cookie itself, which WebKit keeps (docs/guides/keep-the-choice.md). Lower case, no trailing slash, no empty segment; null (the default): the SDK talks to the service directly and writes the cookie itself",
  },
);

/** The domain the decision cookie is set for (docs/guides/keep-the-choice.md). */
export const CookieDomain = Type.Union(
  [
    Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$',
      examples: ['example.com'],
    }),
    Type.Null(),
  ],
  {
    description:
      'The Domain of the decision cookie, so one decision holds on every subdomain: a registrable domain (or one under it) that covers every registered origin of the channel, never a public suffix (the Public Suffix List decides, private section included). Lower case, punycode for international names; null (the default): the cookie is host-only',
  },
);

/** Whether the choice is handed over between the channel's registrable domains. */
export const CrossDomain = Type.Boolean({
  description:
    'With origins on more than one registrable domain: the first layer names the other domains the choice applies to, and the SDK hands the choice over (POST …/handoffs) when the visitor follows a link to one of them. false (the default): each domain asks on its own',
});

/** The consent management platforms a channel imports decisions from, and their category ids' shapes. */
export const IMPORT_CMPS = ['onetrust', 'cookiebot', 'tcf'] as const;
export type ImportCmp = (typeof IMPORT_CMPS)[number];
export const IMPORT_CATEGORY_PATTERNS: Record<ImportCmp, string> = {
  onetrust: '^C[0-9]{4}$',
  cookiebot: '^(preferences|statistics|marketing)$',
  tcf: '^([1-9]|1[01])$',
};

export const CmpImport = Type.Object(
  {
    from: Type.Union(
      IMPORT_CMPS.map((cmp) => Type.Literal(cmp)),
      {
        description:
          'The previous CMP whose cookie is read: "onetrust" (OptanonConsent), "cookiebot" (CookieConsent), "tcf" (euconsent-v2)',
      },
    ),
    purposes: Type.Record(Type.String({ maxLength: 16 }), Type.String({ maxLength: 40 }), {
      minProperties: 1,
      maxProperties: 50,
      description:
        "Their category id → one of the channel's optional purpose keys: OneTrust group ids (C0002), Cookiebot categories (preferences, statistics, marketing), TCF purpose ids (1–11)",
      examples: [{ C0002: 'analytics', C0004: 'marketing' }],
    }),
  },
  { additionalProperties: false },
);

export const CmpImports = Type.Array(CmpImport, {
  maxItems: 3,
  description:
    'Decisions made in the previous CMP that the SDK imports instead of asking (each CMP once); [] (the default): none. A visitor with no decision of ours and a valid cookie of one of them is not asked when every optional purpose is mapped and the choice is younger than consentMaxAgeDays',
});
