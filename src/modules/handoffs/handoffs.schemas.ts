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

export const Handoff = Type.Object(
  {
    token: Type.String({
      pattern: '^[0-9A-Za-z]{43}$',
      description:
        'Opaque, single-use, bound to the target origin: the SDK adds it to the link as `#cs_handoff=<token>` (a fragment reaches no server and no Referer)',
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
