import { Type } from '@sinclair/typebox';
import { ApiDate } from '../../platform/http/schemas.ts';
import { Regime } from '../regions/regions.schemas.ts';
import { DecisionValue, Source } from './evidence.schemas.ts';

const SubjectId = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The visitor's raw id; pseudonymized server-side, never stored or logged",
});
const ChannelId = Type.String({ minLength: 1, maxLength: 64 });

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
        'The IAB TC string of the subject’s newest decision that carried one (TCF channels); null when none did',
    }),
  },
  { $id: 'ConsentState' },
);

export const ConsentStateQuery = Type.Object(
  { channelId: ChannelId, subjectId: SubjectId },
  { additionalProperties: false },
);

export const ConsentStateLookupBody = Type.Object(
  {
    channelId: ChannelId,
    subjectIds: Type.Array(SubjectId, { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false, $id: 'ConsentStateLookupBody' },
);

export const ConsentStateLookupResult = Type.Object(
  {
    subjectId: Type.String(),
    state: Type.Union([ConsentState, Type.Null()]),
  },
  { $id: 'ConsentStateLookupResult' },
);
