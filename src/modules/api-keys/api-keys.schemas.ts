import { Type } from '@sinclair/typebox';
import { SCOPE_ALIASES, SCOPES } from '../../platform/auth/scopes.ts';
import { ApiDate, DateTimeInput, NullableApiDate } from '../../platform/http/schemas.ts';

/** A scope as keys hold it: one of the closed catalogue. */
const ScopeName = Type.Unsafe<string>({ type: 'string', enum: [...SCOPES] });

/**
 * A scope as a request may name it: the catalogue, or an alias of one (stored as its scope). A
 * name outside it is a 422 `invalid_scopes` listing each (api-keys.routes.ts), not the
 * `validation_failed` a schema's enum would give: the contract's code for it.
 */
export const RequestedScope = Type.Unsafe<string>({
  type: 'string',
  enum: [...SCOPES, ...Object.keys(SCOPE_ALIASES)],
  description: `A scope of the catalogue (${Object.entries(SCOPE_ALIASES)
    .map(([alias, scope]) => `${alias} is stored as ${scope}`)
    .join('; ')})`,
});

export const ApiKey = Type.Object(
  {
    id: Type.String({ examples: ['key_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    name: Type.String(),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    scopes: Type.Array(ScopeName),
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
    scopes: Type.Array(RequestedScope, {
      minItems: 1,
      maxItems: 50,
      description: 'Unknown names: 422 invalid_scopes, listed in `invalidScopes`',
    }),
    expiresAt: Type.Optional(Type.Union([DateTimeInput(), Type.Null()])),
  },
  { additionalProperties: false },
);

export const RotateApiKeyBody = Type.Object(
  {
    graceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 86_400 })),
  },
  { additionalProperties: false },
);
