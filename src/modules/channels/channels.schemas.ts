import { type Static, type TString, Type } from '@sinclair/typebox';
import { ApiDate, NullableApiDate } from '../../platform/http/schemas.ts';
import { BANNER_WORDS, type UiStrings } from '../../shared/banner-words.ts';
import { ConsentMaxAgeDays, Regime, RegionRules, ResolvedRegion } from '../regions/regions.schemas.ts';
import {
  GoogleAdditionalConsent,
  SiteGoogleAdditionalConsent,
} from '../tcf/additional-consent/additional-consent.schemas.ts';
import { CmpImports, CookieDomain, CrossDomain, FirstPartyPath } from './first-party.schemas.ts';

/** BCP 47 tags as banners use them: `en`, `fr`, `pt-BR`, `zh-Hant-TW`, `es-419`. */
export const LANGUAGE_PATTERN = '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$';
export const Language = Type.String({ pattern: LANGUAGE_PATTERN, examples: ['en', 'pt-BR'] });

export const CONSENT_MODE_SIGNALS = [
  'ad_storage',
  'ad_user_data',
  'ad_personalization',
  'analytics_storage',
  'functionality_storage',
  'personalization_storage',
  'security_storage',
] as const;

export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const Description = Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]);
const Environment = Type.Union([Type.Literal('test'), Type.Literal('live')]);
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')]);

/** The operator's IAB-assigned CMP id; null: no GPP API. */
const NullableGppCmpId = Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.Null()], {
  description: 'Your IAB CMP id: when set, the SDK provides the GPP API (__gpp) in US opt-out regions',
});

/** Which GPP section US opt-out visitors get (docs/guides/us-privacy.md). */
export const GppSections = Type.Union([Type.Literal('usnat'), Type.Literal('state')], {
  description:
    'Which IAB GPP section US opt-out visitors get: "usnat" (the default) the US National section everywhere; "state" the section of their state where IAB has one (usca, usva, usco, usut, usct, usfl, usmt, usor, ustx, usde, usia, usne, usnh, usnj, ustn, usmn, usmd, usin, usky, usri), usnat elsewhere',
});

/** Microsoft's consent signals (docs/guides/tag-managers.md). */
export const Integrations = Type.Object(
  {
    microsoftUet: Type.Boolean({
      description:
        "Push UET's consent mode (ad_storage) to window.uetq: a default before any tag, an update on every change",
    }),
    microsoftClarity: Type.Boolean({
      description: "Call window.clarity('consentv2', {ad_Storage, analytics_Storage}) on every change",
    }),
  },
  { additionalProperties: false },
);

/** As written: each member optional, merged into the channel's current integrations. */
const IntegrationsInput = Type.Partial(Integrations, { additionalProperties: false });

/** Days without a banner after a refusal of every optional purpose (docs/guides/signed-in-visitors.md). */
export const RejectCooldownDays = Type.Integer({
  minimum: 0,
  maximum: 395,
  description:
    'After a decision that denies every optional purpose, the banner is not shown again for this many days, not even after a material change (the privacy choices link still opens the preferences); 0 (the default) asks as usual',
});

/** The reopen control of TCF channels (docs/guides/tcf.md). */
export const ReopenControl = Type.Union([Type.Literal('floating'), Type.Literal('none')], {
  description:
    'On a TCF channel, what a visitor in an opt-in region keeps after a decision to reopen the preferences: "floating" (the default), a persistent, labelled "Your Privacy Choices" button at the bottom left, themable with the banner’s --consent-* variables; "none", only the page’s own links (any element with data-consent-action="privacy-choices", or ConsentService.showPreferences()). Channels without tcf keep the setting but show no control',
});
/**
 * The publisher's restrictions of chosen vendors' purposes (docs/guides/tcf.md, "Publisher
 * restrictions"), encoded in the TC string's core segment. Each vendor id must be one of the
 * channel's vendorIds; purpose 1 and 3–6 cannot be restricted to legitimate interest.
 */
const PublisherRestrictions = Type.Array(
  Type.Object(
    {
      purposeId: Type.Integer({ minimum: 1, maximum: 11 }),
      type: Type.Union([
        Type.Literal('not_allowed'),
        Type.Literal('require_consent'),
        Type.Literal('require_li'),
      ]),
      vendorIds: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
      }),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: 33,
    description:
      'Per purpose and restriction type, the vendors it applies to (not_allowed, require_consent, require_li); [] by default',
  },
);

const TcfFields = {
  cmpId: Type.Integer({
    minimum: 2,
    maximum: 4095,
    description: 'Your CMP id, registered with IAB Europe (the service never lends one)',
  }),
  // 12 bits in a TC string: a larger number could not be carried.
  cmpVersion: Type.Union([Type.Integer({ minimum: 1, maximum: 4095 }), Type.Null()], {
    description:
      'Your CMP version, pinned; null (the default) follows the service’s TCF release, which rises with every change to the CMP (docs/tcf-changelog.md)',
  }),
  vendorIds: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
    minItems: 1,
    maxItems: 1000,
    uniqueItems: true,
    description: 'Global Vendor List ids of the vendors visitors are asked about',
  }),
  publisherCountryCode: Type.String({
    pattern: '^[A-Z]{2}$',
    description: 'A code ISO 3166-1 assigns (alpha-2); an unassigned or user-assigned one (ZZ, XK) is 422',
  }),
  purposeOneTreatment: Type.Boolean({
    description: 'Purpose 1 is not disclosed (only where the publisher’s country allows it)',
  }),
  publisherRestrictions: PublisherRestrictions,
  googleAdditionalConsent: GoogleAdditionalConsent,
  unknownRegion: Type.Union([Type.Literal('gdpr'), Type.Literal('not_applicable')], {
    description:
      'Visitors whose region the service cannot resolve (no GeoIP database, a private or unknown address): "gdpr" (the default) treats them as visitors the GDPR covers (the TCF layers, opt-in, gdprApplies true), since they may be in the EEA or the UK; "not_applicable" lets the channel’s regionRules decide, as for a channel without TCF (docs/guides/tcf.md). Always in answers; a PATCH that leaves it out keeps the channel’s',
  }),
};

/**
 * The channel's IAB TCF settings; null: not a TCF CMP. `unknownRegion` is always sent, but
 * declared optional: clients typed from this document before it existed (the console's TCF form)
 * build settings without it, and the service keeps the channel's own when a PATCH leaves it out.
 */
const NullableTcf = Type.Union(
  [Type.Object({ ...TcfFields, unknownRegion: Type.Optional(TcfFields.unknownRegion) }), Type.Null()],
  {
    description:
      'IAB TCF v2.3 settings: when set, visitors in opt-in regions get the TCF layers and a TC string',
  },
);

/** As written: cmpVersion defaults to null (follow the release), purposeOneTreatment to false; PATCH replaces the whole. */
const NullableTcfInput = Type.Union(
  [
    Type.Object(
      {
        ...TcfFields,
        cmpVersion: Type.Optional(TcfFields.cmpVersion),
        purposeOneTreatment: Type.Optional(TcfFields.purposeOneTreatment),
        publisherRestrictions: Type.Optional(TcfFields.publisherRestrictions),
        googleAdditionalConsent: Type.Optional(TcfFields.googleAdditionalConsent),
        unknownRegion: Type.Optional(TcfFields.unknownRegion),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'IAB TCF v2.3 settings, replaced as a whole; null turns TCF off' },
);

/** Set on create only: a web channel has origins, an app channel app ids (docs/guides/apps.md). */
const Platform = Type.Union([Type.Literal('web'), Type.Literal('app')], {
  description:
    'Where the channel is shown: "web" (pages on its origins) or "app" (apps by their app ids, whose public calls send X-Consent-App instead of an Origin). Set on create; default "web"',
});

export const Channel = Type.Object(
  {
    id: Type.String({ examples: ['ch_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    status: Status,
    environment: Environment,
    siteKey: Type.String({ description: 'Public key of the site endpoints: site_test_… or site_live_…' }),
    privacyPolicy: Type.Object({
      url: Type.Union([Type.String(), Type.Null()]),
      version: Type.String(),
      retentionDays: Type.Integer(),
    }),
    configVersion: Type.Integer({ description: 'Grows by one whenever what visitors are shown changes' }),
    defaultLanguage: Type.String(),
    regionRules: RegionRules,
    consentMaxAgeDays: ConsentMaxAgeDays,
    rejectCooldownDays: RejectCooldownDays,
    gppCmpId: NullableGppCmpId,
    gppSections: GppSections,
    tcf: NullableTcf,
    integrations: Integrations,
    reopenControl: ReopenControl,
    firstPartyPath: FirstPartyPath,
    cookieDomain: CookieDomain,
    crossDomain: CrossDomain,
    imports: CmpImports,
    platform: Platform,
    createdAt: ApiDate,
    updatedAt: ApiDate,
    archivedAt: NullableApiDate,
  },
  { $id: 'Channel' },
);

const PolicyUrl = Type.Union([
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 }),
  Type.Null(),
]);
const PolicyVersion = Type.String({ minLength: 1, maxLength: 50 });
const RetentionDays = Type.Integer({ minimum: 1, maximum: 3650 });

export const CreateChannelBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    defaultLanguage: Type.Optional(Language),
    privacyPolicy: Type.Optional(
      Type.Object(
        {
          url: Type.Optional(PolicyUrl),
          version: Type.Optional(PolicyVersion),
          retentionDays: Type.Optional(RetentionDays),
        },
        { additionalProperties: false },
      ),
    ),
    regionRules: Type.Optional(RegionRules),
    consentMaxAgeDays: Type.Optional(ConsentMaxAgeDays),
    rejectCooldownDays: Type.Optional(RejectCooldownDays),
    gppCmpId: Type.Optional(NullableGppCmpId),
    gppSections: Type.Optional(GppSections),
    tcf: Type.Optional(NullableTcfInput),
    integrations: Type.Optional(IntegrationsInput),
    reopenControl: Type.Optional(ReopenControl),
    firstPartyPath: Type.Optional(FirstPartyPath),
    cookieDomain: Type.Optional(CookieDomain),
    crossDomain: Type.Optional(CrossDomain),
    imports: Type.Optional(CmpImports),
    platform: Type.Optional(Platform),
  },
  { additionalProperties: false },
);

/**
 * Every member optional; privacyPolicy is merged member by member. No platform: origins or app ids
 * registered under one would mean nothing under the other.
 */
export const UpdateChannelBody = Type.Partial(Type.Omit(CreateChannelBody, ['platform']), {
  additionalProperties: false,
});

const Translation = Type.Object(
  { name: Name, description: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]) },
  { additionalProperties: false },
);
const Cookie = Type.Object(
  {
    name: Type.String(),
    domain: Type.Union([Type.String(), Type.Null()]),
    maxAgeSeconds: Type.Union([Type.Integer(), Type.Null()]),
  },
  { additionalProperties: false },
);

const Ids = Type.Array(Type.Integer());

/**
 * A TCF channel's part of a config snapshot: its settings, the vendor list version it was made
 * with, and what each chosen vendor declared in that list (so a vendor that starts declaring more
 * makes a new, material version). Deleted vendors are left out.
 */
const SnapshotTcf = Type.Union([
  Type.Object({
    ...TcfFields,
    // Snapshots made before restrictions existed lack them: none.
    publisherRestrictions: Type.Optional(TcfFields.publisherRestrictions),
    // Snapshots made before Additional Consent lack it: none. A snapshot keeps the providers' names
    // and policies as Google's ATP list gave them then, as the site config serves them.
    googleAdditionalConsent: Type.Optional(SiteGoogleAdditionalConsent),
    // Snapshots made before it lack it: "gdpr".
    unknownRegion: Type.Optional(TcfFields.unknownRegion),
    vendorListVersion: Type.Integer(),
    tcfPolicyVersion: Type.Integer(),
    // Absent from snapshots made before it: "floating".
    reopenControl: Type.Optional(ReopenControl),
    vendors: Type.Array(
      Type.Object({
        id: Type.Integer(),
        purposes: Ids,
        legIntPurposes: Ids,
        flexiblePurposes: Ids,
        specialPurposes: Ids,
        features: Ids,
        specialFeatures: Ids,
      }),
    ),
  }),
  Type.Null(),
]);

/**
 * The visitor-facing config of one version (built by visitor-config.ts), as stored per version,
 * as served by the public config route and inside ConfigVersion: the one definition of its shape.
 */
export const VisitorConfig = Type.Object(
  {
    channelId: Type.String(),
    siteKey: Type.String(),
    configVersion: Type.Integer(),
    defaultLanguage: Type.String(),
    languages: Type.Array(Type.String()),
    privacyPolicy: Type.Object({ url: Type.Union([Type.String(), Type.Null()]), version: Type.String() }),
    regionRules: RegionRules,
    consentMaxAgeDays: ConsentMaxAgeDays,
    rejectCooldownDays: RejectCooldownDays,
    gppCmpId: NullableGppCmpId,
    gppSections: GppSections,
    tcf: SnapshotTcf,
    integrations: Integrations,
    firstPartyPath: FirstPartyPath,
    cookieDomain: CookieDomain,
    crossDomain: CrossDomain,
    imports: CmpImports,
    purposes: Type.Array(
      Type.Object({
        key: Type.String(),
        name: Type.String(),
        description: Type.Union([Type.String(), Type.Null()]),
        legalBasis: Type.Union([Type.Literal('consent'), Type.Literal('legitimate_interest')]),
        required: Type.Boolean(),
        translations: Type.Record(Type.String(), Translation),
        consentModeSignals: Type.Array(Type.Union(CONSENT_MODE_SIGNALS.map((s) => Type.Literal(s)))),
        gpcOptOut: Type.Boolean(),
      }),
    ),
    technologies: Type.Array(
      Type.Object({
        name: Type.String(),
        vendor: Type.Union([Type.String(), Type.Null()]),
        purposeKeys: Type.Array(Type.String()),
        cookies: Type.Array(Cookie),
      }),
    ),
  },
  { $id: 'VisitorConfig' },
);
export type VisitorConfig = Static<typeof VisitorConfig>;

/**
 * The public config answer (`GET /v1/public/sites/:siteKey/config`): the snapshot, resolved for
 * the visitor's region (docs/regions.md).
 */
/** The banner's words in one language (src/shared/banner-words.ts): every member a string. */
const BannerWords = Type.Object(
  Object.fromEntries(Object.keys(BANNER_WORDS.de).map((key) => [key, Type.String()])) as Record<
    keyof UiStrings,
    TString
  >,
  { additionalProperties: false },
);

export const SiteConfig = Type.Composite(
  [
    Type.Omit(VisitorConfig, ['tcf']),
    Type.Object({
      tcf: Type.Optional(
        Type.Object(
          {
            cmpId: Type.Integer(),
            cmpVersion: Type.Integer(),
            vendorListVersion: Type.Integer(),
            tcfPolicyVersion: Type.Integer(),
            gdprApplies: Type.Literal(true),
            publisherCountryCode: Type.String(),
            purposeOneTreatment: Type.Boolean(),
            reopenControl: ReopenControl,
            publisherRestrictions: PublisherRestrictions,
            googleAdditionalConsent: SiteGoogleAdditionalConsent,
            vendorListUrl: Type.String({
              format: 'uri',
              description: 'The channel’s vendors in that vendor list version; add `&lang=xx` for a language',
            }),
          },
          { description: 'A TCF channel in an opt-in region only: what the TCF CMP (tcf.js) needs' },
        ),
      ),
      tcfCmp: Type.Optional(
        Type.Object(
          {
            cmpId: Type.Integer(),
            cmpVersion: Type.Integer(),
            tcfPolicyVersion: Type.Integer(),
            gdprApplies: Type.Boolean({ description: 'true in opt-in regions only' }),
          },
          {
            description:
              'A TCF channel, in every region: the CMP that `__tcfapi` names. Outside opt-in regions the SDK answers the CMP API with it alone (GDPR does not apply; tcf.js is not loaded)',
          },
        ),
      ),
      region: ResolvedRegion,
      regime: Regime,
      consentRequiredSince: Type.Integer({
        description: 'The newest configVersion that asked visitors again; older decisions are asked again',
      }),
      origins: Type.Array(Type.String(), {
        description:
          'Where the site’s pages may run: the channel’s active origins (`https://*.example.com` stands for one label), then on test channels `http://localhost:*` and `http://127.0.0.1:*` (any port). The SDK shows and runs nothing on a page elsewhere, and says so in the console',
        examples: [['https://shop.example.com', 'https://*.example.org']],
      }),
      siblingDomains: Type.Array(
        Type.Object({
          domain: Type.String({ description: 'A registrable domain (by the Public Suffix List)' }),
          origins: Type.Array(Type.String(), {
            description: 'The channel’s active origins on it (`https://*.example.com` stands for one label)',
          }),
        }),
        {
          description:
            'With crossDomain on and active origins on more than one registrable domain: every such domain with its origins, in the order they were registered (the SDK names the ones the page is not on, and hands the choice over on links to them); [] otherwise',
          examples: [
            [
              { domain: 'example.com', origins: ['https://www.example.com'] },
              { domain: 'example.org', origins: ['https://shop.example.org'] },
            ],
          ],
        },
      ),
      bannerWords: Type.Record(Type.String({ pattern: '^[a-z]{2,3}(-[a-z0-9]{1,8})*$' }), BannerWords, {
        description:
          'The banner’s own words (buttons, titles, notices) in each of the channel’s `languages` the SDK has words for other than English, by lower-case language tag; English is built into the SDK. {} for a channel in English alone',
      }),
    }),
  ],
  { $id: 'SiteConfig' },
);

export const ConfigVersion = Type.Object(
  {
    version: Type.Integer(),
    createdAt: ApiDate,
    reconsent: Type.Boolean({
      description:
        'A material change (a purpose added, a purpose’s basis, required flag or text, the policy version, a region’s regime, TCF turned on, a TCF vendor added or declaring more, or a Google Additional Consent provider added): visitors who answered an older version are asked again',
    }),
    config: VisitorConfig,
  },
  { $id: 'ConfigVersion' },
);

export const ChannelParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ConfigVersionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

/** Body of the archive actions: nothing (read as {} by absentBodyAsEmpty), or an empty object. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

/**
 * The store notification channel (`store.notify` / `store.listen`) for any change to a channel or
 * its parts: every replica's public-site cache drops what it holds when it fires.
 */
export const CHANNEL_CHANGES = 'channel_changes';
