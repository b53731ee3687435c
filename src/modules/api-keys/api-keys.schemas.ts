import { Type } from '@sinclair/typebox';
import { ApiDate, NullableApiDate } from '../../platform/http/schemas.ts';

export const ApiKey = Type.Object(
  {
    id: Type.String({ examples: ['key_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    name: Type.String(),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    scopes: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
    prefix: Type.String({ description: 'First 12 characters of the secret, for telling keys apart' }),
    createdAt: ApiDate,
    expiresAt: NullableApiDate,
    lastUsedAt: NullableApiDate,
    revokedAt: NullableApiDate,
    memberId: Type.String(),
  },
  { $id: 'ApiKey' },
);

export const ApiKeyWithSecret = Type.Composite(
  [
    Type.Omit(ApiKey, []),
    Type.Object({ secret: Type.String({ description: 'Shown once, in this response only' }) }),
  ],
  { $id: 'ApiKeyWithSecret' },
);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }),
    expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const RotateApiKeyBody = Type.Object(
  {
    graceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 86_400 })),
  },
  { additionalProperties: false },
);
