import { Type } from '@sinclair/typebox';
import { ApiDate, NullableApiDate } from '../../platform/http/schemas.ts';
import { ConsentMaxAgeDays, Regime, RegionRules, ResolvedRegion } from '../regions/regions.schemas.ts';

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
    gppCmpId: NullableGppCmpId,
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
    gppCmpId: Type.Optional(NullableGppCmpId),
  },
  { additionalProperties: false },
);

/** Every member optional; privacyPolicy is merged member by member. */
export const UpdateChannelBody = Type.Partial(CreateChannelBody, { additionalProperties: false });

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
    gppCmpId: NullableGppCmpId,
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

/**
 * The public config answer (`GET /v1/public/sites/:siteKey/config`): the snapshot, resolved for
 * the visitor's region (docs/regions.md).
 */
export const SiteConfig = Type.Composite(
  [
    VisitorConfig,
    Type.Object({
      region: ResolvedRegion,
      regime: Regime,
      consentRequiredSince: Type.Integer({
        description: 'The newest configVersion that asked visitors again; older decisions are asked again',
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
        'A material change (a purpose added, a purpose’s basis, required flag or text, the policy version, or a region’s regime): visitors who answered an older version are asked again',
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
