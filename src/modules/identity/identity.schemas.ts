import { Type } from '@sinclair/typebox';
import { ApiDate } from '../../platform/http/schemas.ts';
import { DecisionValue } from '../evidence/evidence.schemas.ts';
import { IDENTITY_TOKEN_MAX_CHARS } from './identity-token.ts';

/** An identity secret as lists show it: never the secret. */
export const IdentitySecret = Type.Object(
  {
    id: Type.String({ examples: ['isk_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    createdAt: ApiDate,
  },
  { $id: 'IdentitySecret' },
);

/** The create answer: the secret, this once. */
export const CreatedIdentitySecret = Type.Object(
  {
    id: Type.String({ examples: ['isk_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    secret: Type.String({
      description:
        'The HS256 key your backend signs identity tokens with (its UTF-8 bytes, as written). Shown once: it cannot be read again',
      examples: ['idsec_Zk3q9X2mQ7pL1vN8sR3tY6wQa4kF9x2mQ7pL1vN8sR3t'],
    }),
    createdAt: ApiDate,
  },
  { $id: 'CreatedIdentitySecret' },
);

export const IdentitySecretParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  secretId: Type.String({ minLength: 1, maxLength: 64 }),
});

/** A token as clients send it; its checks (size first) are the verifier's, so every refusal is one 401. */
export const IdentityToken = Type.String({
  description: `A JWT signed by your backend with HS256 and an identity secret of the channel: sub (the account id, 1–200 characters), aud (the siteKey), iat and exp (at most 24 hours after iat); at most ${IDENTITY_TOKEN_MAX_CHARS} characters. Anything else is a 401 invalid_identity_token`,
});

export const IdentityBody = Type.Object({ token: IdentityToken }, { additionalProperties: false });

/** The account's current choice on the channel (null: none yet). */
export const AccountChoice = Type.Union(
  [
    Type.Object({
      purposes: Type.Record(Type.String(), DecisionValue, {
        description: 'The newest decision per purpose the account made on this channel, on any device',
      }),
      configVersion: Type.Integer({ description: 'The config version of the account’s newest decision' }),
      recordedAt: ApiDate,
      tcString: Type.Union([Type.String(), Type.Null()], {
        description:
          'On a TCF channel, the IAB TC string made with the account’s newest decision (the SDK serves it through `__tcfapi` on every device where the account is signed in); null when that decision carried none, or the channel is not a TCF CMP',
      }),
      addtlConsent: Type.Union([Type.String(), Type.Null()], {
        description:
          'On a channel with Google Additional Consent, the AC string sent with the account’s newest decision (the SDK serves it as `addtlConsent` in TCData on every device where the account is signed in); null when that decision carried none',
      }),
    }),
    Type.Null(),
  ],
  { description: 'The account’s current choice; null when it has none on this channel' },
);

export const IdentityAnswer = Type.Object({ state: AccountChoice }, { $id: 'IdentityState' });
