import { Type } from '@sinclair/typebox';
import { ApiDate, DateTimeInput, PageQuery } from '../../platform/http/schemas.ts';
import { Regime, RegionSource } from '../regions/regions.schemas.ts';

/** Test evidence is kept one day; live evidence its channel's retentionDays. */
export const TEST_RETENTION_MS = 24 * 3600_000;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
export const DecisionValue = Type.Union([Type.Literal('granted'), Type.Literal('denied')]);
/** What a page may say a decision came from (the preferences write). */
export const PREFERENCE_SOURCES = ['banner', 'preference_center', 'api', 'gpc', 'import'] as const;
/**
 * Where an evidence event's decision came from: the preferences write's sources, and "handoff" (a
 * decision handed over from a sibling domain, recorded by the service itself on redeem).
 */
export const Source = Type.Union([...PREFERENCE_SOURCES, 'handoff' as const].map((s) => Type.Literal(s)));
export const IMPORT_SOURCE_CMPS = ['onetrust', 'cookiebot', 'tcf'] as const;
export const PURPOSE_KEY_PATTERN = '^[a-z][a-z0-9_]{0,39}$';

/** An evidence event. The pseudonym is always masked on reads. */
export const EvidenceEvent = Type.Object(
  {
    id: Type.String({ examples: ['evt_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    type: Type.Literal('consent.recorded'),
    channelId: Type.String(),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    subject: Type.Object({
      pseudonym: Type.String({ pattern: '^psn_\\*{4}[0-9a-f]{4}$', examples: ['psn_****9f3a'] }),
    }),
    decisions: Type.Record(Type.String(), DecisionValue),
    configVersion: Type.Integer(),
    policyVersion: Type.String(),
    source: Source,
    language: Nullable(Type.String()),
    gpc: Type.Boolean(),
    origin: Nullable(Type.String()),
    userAgent: Nullable(Type.String()),
    ipPrefix: Nullable(Type.String()),
    region: Type.Optional(
      Nullable(
        Type.String({ description: 'The visitor’s region when recorded (absent on events before regions)' }),
      ),
    ),
    regionSource: Type.Optional(RegionSource()),
    regime: Type.Optional(Regime),
    gppString: Type.Optional(
      Type.String({ description: 'The IAB GPP string sent with the decision (absent when none was sent)' }),
    ),
    tcString: Type.Optional(
      Type.String({ description: 'The IAB TC string sent with the decision (absent when none was sent)' }),
    ),
    tcf: Type.Optional(
      Type.Object(
        {
          vendorListVersion: Type.Integer(),
          purposeConsents: Type.Array(Type.Integer()),
          vendorConsents: Type.Array(Type.Integer()),
          specialFeatureOptins: Type.Array(Type.Integer()),
          // Absent on events recorded before the service kept them; present on every later one.
          purposeLegitimateInterests: Type.Optional(
            Type.Array(Type.Integer(), {
              description: 'Purposes whose legitimate interest was not objected to',
            }),
          ),
          vendorLegitimateInterests: Type.Optional(
            Type.Array(Type.Integer(), {
              description: 'Vendors whose legitimate interest was not objected to',
            }),
          ),
          vendorsDisclosed: Type.Optional(
            Type.Array(Type.Integer(), { description: 'The DisclosedVendors segment: the vendors shown' }),
          ),
          policyVersion: Type.Optional(Type.Integer({ description: "The string's TCF policy version" })),
          consentScreen: Type.Optional(
            Type.Integer({ description: "The CMP's number for the screen the choice was made on" }),
          ),
          publisherCustomConsents: Type.Optional(
            Type.Array(Type.Integer(), {
              description:
                "The Publisher TC segment's custom purposes with consent: custom purpose n is the channel's n-th purpose (absent when the string carries none)",
            }),
          ),
          addtlConsent: Type.Optional(
            Type.String({
              description:
                'The Google Additional Consent string sent with the decision (absent when none was sent)',
            }),
          ),
        },
        {
          description:
            'What the service decoded from tcString with @iabtechlabtcf/core (absent without one). The vendor lists hold only the channel’s vendors. Events recorded before the TC string rules lack the members after specialFeatureOptins',
        },
      ),
    ),
    subjectKind: Type.Optional(
      Type.Union([Type.Literal('device'), Type.Literal('account')], {
        description:
          'Whose decision: "account" (a signed-in visitor, with an identity token: the pseudonym is the account’s) or "device" (the visitor’s subjectId). Absent on events recorded before accounts existed, which are device decisions',
      }),
    ),
    handoff: Type.Optional(
      Type.Union(
        [
          Type.Object({
            fromOrigin: Type.String({ description: 'The origin the visitor came from' }),
            eventId: Type.String({
              description: 'The event of the decision handed over (the visitor’s own)',
            }),
          }),
          Type.Object({
            fromApp: Type.String({ description: 'The app id whose WebView opened the page' }),
            eventId: Type.String({
              description: 'The app channel’s event of the decision handed over (the visitor’s own)',
            }),
          }),
        ],
        {
          description:
            'Source "handoff": the decision was handed over from another registrable domain of the channel (docs/guides/keep-the-choice.md), or from an app into its WebView (docs/guides/apps.md); absent otherwise',
        },
      ),
    ),
    app: Type.Optional(
      Type.Object(
        {
          appId: Type.String({ description: 'X-Consent-App: an active app id of the channel' }),
          platform: Type.Union([Type.Literal('ios'), Type.Literal('android'), Type.Literal('other')], {
            description: 'X-Consent-Platform ("other" when none was sent)',
          }),
          sdkVersion: Type.Union([Type.String(), Type.Null()], {
            description: 'X-Consent-Sdk-Version, or null when none was sent',
          }),
        },
        {
          description:
            'An app channel’s decision: the app that sent it, in place of an origin (docs/guides/apps.md); absent otherwise',
        },
      ),
    ),
    importedFrom: Type.Optional(
      Type.Object(
        {
          cmp: Type.Union(IMPORT_SOURCE_CMPS.map((c) => Type.Literal(c))),
          recordedAt: Type.String({
            description: 'When the visitor made the choice in that CMP (RFC 3339, UTC)',
          }),
          value: Type.String({ description: 'The CMP’s cookie, as read' }),
        },
        {
          description:
            'Source "import": the decision was imported from the site’s previous CMP (docs/guides/keep-the-choice.md); absent otherwise. The event’s own recordedAt is the time of the import',
        },
      ),
    ),
    gpcHonoredShown: Type.Optional(
      Type.Literal(true, {
        description:
          'The page showed the visitor that their opt-out preference signal (Global Privacy Control) was honoured ("Opt-Out Request Honored"); absent otherwise',
      }),
    ),
    recordedAt: ApiDate,
    receipt: Type.Object({
      hash: Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: 'Ledger leaf hash: hex SHA-256(0x00 ‖ JCS(event, pseudonym unmasked, no receipt))',
      }),
    }),
  },
  { $id: 'EvidenceEvent' },
);

const Filter = (options: object = {}) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, ...options }));

export const EvidenceQuery = Type.Object(
  {
    ...PageQuery,
    channelId: Filter({ maxLength: 64 }),
    from: Type.Optional(DateTimeInput('RFC 3339; recordedAt at or after')),
    to: Type.Optional(DateTimeInput('RFC 3339; recordedAt at or before')),
    purpose: Filter({ pattern: PURPOSE_KEY_PATTERN, description: 'Events that decided this purpose' }),
    decision: Type.Optional(DecisionValue),
    source: Type.Optional(Source),
    region: Filter({
      pattern: '^[A-Z]{2}(-[A-Z0-9]{1,3})?$',
      description: 'Events recorded in this region; a country also matches its subdivisions (US: US-CA…)',
    }),
    regime: Type.Optional(Regime),
    appId: Filter({
      maxLength: 255,
      description: 'Events an app of an app channel sent, by its app id (docs/guides/apps.md)',
    }),
    subjectId: Filter({
      maxLength: 128,
      description: "The visitor's raw id; pseudonymized server-side, never stored",
    }),
    sameSubjectAs: Filter({
      maxLength: 64,
      description:
        'Events of the same subject as this event (an evt_ id of the environment), itself included: a subject’s decisions when only the masked pseudonym is known. Not with subjectId',
    }),
  },
  { additionalProperties: false },
);
