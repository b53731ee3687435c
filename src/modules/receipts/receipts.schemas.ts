import { Type } from '@sinclair/typebox';
import { ApiDate } from '../../platform/http/schemas.ts';

const Hex = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ReceiptParams = Type.Object({
  eventId: Type.String({ minLength: 1, maxLength: 100, examples: ['evt_4kF9x2mQ7pL1vN8sR3tY6w'] }),
});

/**
 * The one query whose unknown parameters are let through (every other route refuses them,
 * validation.ts): the receipt address is a link a visitor keeps and follows, and the places it
 * passes through add their own (`utm_source`, `fbclid`), which must not turn a receipt into a 422.
 */
export const ReceiptQuery = Type.Object(
  {
    token: Type.Optional(
      Type.String({ maxLength: 200, description: 'The capability from the 201 of POST …/preferences' }),
    ),
  },
  { additionalProperties: true },
);

const TreeHead = Type.Object({
  logId: Type.String(),
  treeSize: Type.Integer({ minimum: 1 }),
  rootHash: Hex,
  timestamp: ApiDate,
  keyId: Type.String(),
  signature: Type.String({ description: 'Base64 of the Ed25519 signature over the tree head' }),
});

export const Receipt = Type.Object(
  {
    eventId: Type.String(),
    controller: Type.Object({
      name: Type.String({ description: 'The organization that recorded the decision' }),
      privacyPolicyUrl: Nullable(Type.String()),
      privacyPolicyVersion: Nullable(Type.String()),
    }),
    channelId: Type.String(),
    recordedAt: ApiDate,
    configVersion: Type.Union([Type.Integer(), Type.Null()]),
    region: Nullable(Type.String()),
    regime: Nullable(Type.String()),
    language: Nullable(Type.String()),
    purposes: Type.Array(
      Type.Object({
        key: Type.String(),
        name: Type.String(),
        legalBasis: Nullable(Type.String()),
        decision: Type.Union([Type.Literal('granted'), Type.Literal('denied')]),
      }),
    ),
    leafHash: Hex,
    proof: Type.Union([
      Type.Null(),
      Type.Object({
        logId: Type.String(),
        leafIndex: Type.Integer({ minimum: 0 }),
        treeSize: Type.Integer({ minimum: 1 }),
        auditPath: Type.Array(Hex),
        treeHead: TreeHead,
      }),
    ]),
    signature: Type.Object(
      {
        keyId: Type.String(),
        value: Type.String({ description: 'Base64 Ed25519 signature of the receipt statement' }),
      },
      {
        description:
          'Ed25519 (a ledger key) over "consent-service receipt v1\\n" + JCS of the receipt without proof and signature',
      },
    ),
  },
  { $id: 'Receipt' },
);
