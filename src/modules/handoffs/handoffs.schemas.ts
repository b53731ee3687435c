import { Type } from '@sinclair/typebox';
import { ApiDate } from '../../platform/http/schemas.ts';
import { DecisionValue } from '../evidence/evidence.schemas.ts';

const SubjectId = Type.String({
  minLength: 8,
  maxLength: 128,
  description:
    "The visitor's opaque id on this page, as the SDK keeps it; only its keyed pseudonym is stored",
});

export const HandoffBody = Type.Object(
  {
    subjectId: SubjectId,
    target: Type.String({
      maxLength: 300,
      description:
        'The origin the visitor is going to: a registered origin of the channel (wildcards honoured) on another registrable domain',
      examples: ['https://www.example.org'],
    }),
  },
  { additionalProperties: false },
);

export const AppHandoffBody = Type.Object(
  {
    subjectId: SubjectId,
    target: Type.String({
      maxLength: 300,
      description:
        'The origin of the page the app opens in a WebView: a registered origin (wildcards honoured) of the channel of targetSiteKey',
      examples: ['https://shop.example.com'],
    }),
    targetSiteKey: Type.String({
      maxLength: 80,
      description:
        'The siteKey of the web channel that page belongs to (same organization and environment): the page redeems the token there',
      examples: ['site_live_8f2kQ1x9mZ3pL7vN4sR6tY0w'],
    }),
  },
  { additionalProperties: false },
);

/** What an app channel's public calls carry instead of an Origin (docs/guides/apps.md). */
export const AppHeaders = Type.Object({
  'x-consent-app': Type.String({
    maxLength: 255,
    description:
      'An active app id of the app channel (its bundle id or package name), else 403 app_not_allowed',
  }),
  'x-consent-platform': Type.Optional(
    Type.Union([Type.Literal('ios'), Type.Literal('android'), Type.Literal('other')], {
      description: 'The app’s platform, kept in the evidence ("other" when absent)',
    }),
  ),
  'x-consent-sdk-version': Type.Optional(
    Type.String({ maxLength: 140, description: 'The client’s semantic version, kept in the evidence' }),
  ),
});

export const Handoff = Type.Object(
  {
    token: Type.String({
      pattern: '^[0-9A-Za-z]{43}$',
      description:
        'Opaque, single-use, bound to the target origin: the SDK adds it to the link as `#cs_handoff=<token>` (from an app, the WebView’s URL as `#cs_app=<token>`); a fragment reaches no server and no Referer',
    }),
    expiresAt: ApiDate,
  },
  { $id: 'Handoff' },
);

export const RedeemBody = Type.Object(
  {
    token: Type.String({ maxLength: 100, description: 'The token of the `#cs_handoff=` fragment' }),
    subjectId: SubjectId,
  },
  { additionalProperties: false },
);

export const RedeemedChoice = Type.Object(
  {
    decisions: Type.Record(Type.String(), DecisionValue, {
      description: 'Purpose key → decision: the choice that holds on this origin now',
    }),
    configVersion: Type.Integer({ description: 'The config version the decision answered' }),
    recordedAt: {
      ...ApiDate,
      description:
        'When the visitor made that decision (not when it was handed over): its age counts against consentMaxAgeDays as if made here',
    },
  },
  { $id: 'RedeemedChoice' },
);
