import { Type } from '@sinclair/typebox';
import { ApiDate } from '../../platform/http/schemas.ts';
import { CONSENT_MODE_SIGNALS, Description, LANGUAGE_PATTERN, Name } from './channels.schemas.ts';

/** Schemas of a channel's purposes, technologies and origins. */

export const PURPOSE_KEY_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
const PurposeKey = Type.String({ pattern: PURPOSE_KEY_PATTERN, examples: ['analytics'] });
const LegalBasis = Type.Union([Type.Literal('consent'), Type.Literal('legitimate_interest')]);
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')]);

const TranslationInput = Type.Object(
  { name: Name, description: Type.Optional(Description) },
  { additionalProperties: false },
);
const TranslationOutput = Type.Object({
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
});

const Translations = Type.Record(Type.String({ pattern: LANGUAGE_PATTERN }), TranslationInput, {
  additionalProperties: false,
  maxProperties: 100,
  description: 'Texts by language tag, for example {"fr": {"name": "Mesure d’audience"}}',
});
const ConsentModeSignals = Type.Array(Type.Union(CONSENT_MODE_SIGNALS.map((s) => Type.Literal(s))), {
  uniqueItems: true,
  description: 'Google Consent Mode v2 signals granted with this purpose',
});

export const Purpose = Type.Object(
  {
    id: Type.String({ examples: ['pur_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    channelId: Type.String(),
    key: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    legalBasis: LegalBasis,
    required: Type.Boolean({ description: 'Strictly necessary: a visitor cannot deny it' }),
    status: Status,
    translations: Type.Record(Type.String(), TranslationOutput),
    consentModeSignals: Type.Array(Type.String()),
    gpcOptOut: Type.Boolean({ description: 'A Global Privacy Control signal defaults it to denied' }),
    createdAt: ApiDate,
    updatedAt: ApiDate,
  },
  { $id: 'Purpose' },
);

const purposeFields = {
  name: Name,
  description: Type.Optional(Description),
  legalBasis: Type.Optional(LegalBasis),
  required: Type.Optional(Type.Boolean()),
  translations: Type.Optional(Translations),
  consentModeSignals: Type.Optional(ConsentModeSignals),
  gpcOptOut: Type.Optional(Type.Boolean()),
};

export const CreatePurposeBody = Type.Object(
  { key: PurposeKey, ...purposeFields },
  { additionalProperties: false },
);
/** `key` cannot change: evidence records decisions by key. */
export const UpdatePurposeBody = Type.Partial(Type.Object(purposeFields), { additionalProperties: false });

const CookieInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    domain: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 253 }), Type.Null()])),
    maxAgeSeconds: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()], {
        description: 'null for a session cookie',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A host name, or "*." and a host name for it and its subdomains, with an optional port (no scheme or path). */
const HostInput = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern:
    '^(\\*\\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(:[0-9]{1,5})?$',
  examples: ['www.googletagmanager.com', '*.doubleclick.net'],
});

export const Technology = Type.Object(
  {
    id: Type.String({ examples: ['tec_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    channelId: Type.String(),
    name: Type.String(),
    vendor: Type.Union([Type.String(), Type.Null()]),
    purposeKeys: Type.Array(Type.String()),
    cookies: Type.Array(
      Type.Object({
        name: Type.String(),
        domain: Type.Union([Type.String(), Type.Null()]),
        maxAgeSeconds: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ),
    hosts: Type.Array(Type.String(), {
      description:
        'Hosts it loads from; a tracker scan matches requests to them ("*.example.com" also matches subdomains)',
    }),
    createdAt: ApiDate,
    updatedAt: ApiDate,
  },
  { $id: 'Technology' },
);

const technologyFields = {
  name: Name,
  vendor: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
  purposeKeys: Type.Optional(Type.Array(PurposeKey, { uniqueItems: true, maxItems: 50 })),
  cookies: Type.Optional(Type.Array(CookieInput, { maxItems: 200 })),
  hosts: Type.Optional(Type.Array(HostInput, { uniqueItems: true, maxItems: 100 })),
};

export const CreateTechnologyBody = Type.Object(technologyFields, { additionalProperties: false });
export const UpdateTechnologyBody = Type.Partial(CreateTechnologyBody, { additionalProperties: false });

export const Origin = Type.Object(
  {
    id: Type.String({ examples: ['ori_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    channelId: Type.String(),
    origin: Type.String({ examples: ['https://shop.example.com', 'https://*.example.com'] }),
    status: Status,
    createdAt: ApiDate,
  },
  { $id: 'Origin' },
);

export const CreateOriginBody = Type.Object(
  { origin: Type.String({ minLength: 1, maxLength: 2048 }) },
  { additionalProperties: false },
);

/** A bundle id (iOS) or package name (Android): reverse-domain, at least two labels. */
export const APP_ID_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)+$';
const AppId = Type.String({
  pattern: APP_ID_PATTERN,
  maxLength: 255,
  description: 'The bundle id (iOS) or package name (Android) the app sends as X-Consent-App',
  examples: ['com.example.shop'],
});
const AppStore = Type.Union([Type.Literal('apple'), Type.Literal('google'), Type.Literal('other')], {
  description: 'Where the app is published',
});

export const App = Type.Object(
  {
    id: Type.String({ examples: ['app_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    channelId: Type.String(),
    appId: AppId,
    store: AppStore,
    status: Status,
    createdAt: ApiDate,
  },
  { $id: 'App' },
);

export const CreateAppBody = Type.Object({ appId: AppId, store: AppStore }, { additionalProperties: false });

const id = Type.String({ minLength: 1, maxLength: 64 });
export const PurposeParams = Type.Object({ id, purposeId: id });
export const TechnologyParams = Type.Object({ id, technologyId: id });
export const OriginParams = Type.Object({ id, originId: id });
export const AppParams = Type.Object({ id, appRecordId: id });
