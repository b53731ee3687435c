import { Type } from '@sinclair/typebox';
import { ApiDate, exactlyOneOf } from '../../platform/http/schemas.ts';
import { Regime } from '../regions/regions.schemas.ts';
import { DecisionValue, Source } from './evidence.schemas.ts';

const SubjectId = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The visitor's raw id; pseudonymized server-side, never stored or logged",
});
const ChannelId = Type.String({ minLength: 1, maxLength: 64 });
const AccountId = Type.String({
  minLength: 1,
  maxLength: 200,
  description:
    "A signed-in visitor's account id, as your backend puts it in identity tokens (sub); pseudonymized server-side, never stored or logged",
});

/** A subject's consent state on a channel (docs/guides/check-consent.md). */
export const ConsentState = Type.Object(
  {
    channelId: Type.String(),
    subject: Type.Object({
      pseudonym: Type.String({ pattern: '^psn_\\*{4}[0-9a-f]{4}$', examples: ['psn_****9f3a'] }),
    }),
    purposes: Type.Record(
      Type.String(),
      Type.Object({
        decision: DecisionValue,
        recordedAt: ApiDate,
        eventId: Type.String(),
        configVersion: Type.Integer(),
        source: Source,
      }),
      { description: 'The newest decision per purpose over the subject’s unpurged evidence on the channel' },
    ),
    lastRecordedAt: ApiDate,
    expiresAt: Type.String({
      format: 'date-time',
      description: 'lastRecordedAt plus the channel’s consentMaxAgeDays',
    }),
    expired: Type.Boolean(),
    region: Type.Union([Type.String(), Type.Null()], {
      description:
        'Where the subject was at their newest decision (null: unknown, or recorded before regions)',
    }),
    regime: Type.Union([Regime, Type.Null()]),
    tcString: Type.Union([Type.String(), Type.Null()], {
      description:
        'The IAB TC string as the SDK (tcf.js) would serve it now: tcStringRecorded re-encoded against the channel’s current vendors, vendor list and TCF settings (a vendor removed or deleted keeps no signal and is no longer disclosed; the dates, language and consent screen stay the choice’s). Null when none was recorded, when the channel no longer has TCF, or when the recorded string names another CMP id or TCF policy version than the current ones (the SDK then asks again)',
    }),
    tcStringRecorded: Type.Union([Type.String(), Type.Null()], {
      description:
        'The IAB TC string of the subject’s newest decision that carried one, as the evidence keeps it (TCF channels); null when none did',
    }),
  },
  { $id: 'ConsentState' },
);

/** Exactly one of subjectId (a device) and accountId (a signed-in visitor's account); else 422. */
export const ConsentStateQuery = Type.Object(
  { channelId: ChannelId, subjectId: Type.Optional(SubjectId), accountId: Type.Optional(AccountId) },
  { additionalProperties: false },
);

/** Exactly one of subjectIds and accountIds; else 422. */
export const ConsentStateLookupBody = Type.Object(
  {
    channelId: ChannelId,
    subjectIds: Type.Optional(Type.Array(SubjectId, { minItems: 1, maxItems: 100 })),
    accountIds: Type.Optional(Type.Array(AccountId, { minItems: 1, maxItems: 100 })),
  },
  { additionalProperties: false, $id: 'ConsentStateLookupBody', ...exactlyOneOf('subjectIds', 'accountIds') },
);

/** One subject of a lookup: its id as sent (subjectId, or accountId for accountIds) and its state. */
export const ConsentStateLookupResult = Type.Object(
  {
    subjectId: Type.Optional(Type.String({ description: 'When subjectIds were sent' })),
    accountId: Type.Optional(Type.String({ description: 'When accountIds were sent' })),
    state: Type.Union([ConsentState, Type.Null()]),
  },
  { $id: 'ConsentStateLookupResult' },
);
