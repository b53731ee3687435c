import { errors, jwtVerify } from 'jose';
import { AppError } from '../../platform/http/errors.ts';

/**
 * Identity tokens (docs/guides/signed-in-visitors.md): a JWT (RFC 7519) the site's backend signs
 * with HS256 and one of the channel's identity secrets, naming the signed-in account (`sub`) for
 * one site (`aud`: its siteKey), valid for at most a day. Checked by `jose`, never by hand; this file
 * only bounds the input first (a decoder's worst case is the attacker's best case) and adds the
 * rules JWT libraries leave to the application (the lifetime, the account id's length).
 */

/** Characters a token may have: a real one is about 200; the bound is checked before any decoding. */
export const IDENTITY_TOKEN_MAX_CHARS = 4096;
/** `exp` at most this long after `iat`. */
export const IDENTITY_TOKEN_MAX_LIFETIME_S = 24 * 3600;
/** `sub`, the site's account id: 1–200 characters. */
export const ACCOUNT_ID_MAX_CHARS = 200;
/** Seconds of clock difference forgiven between the site's backend and the service (exp, iat). */
export const CLOCK_TOLERANCE_S = 5;

/** Three base64url parts, the signature not empty: anything else is no signed JWT. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export const invalidIdentityToken = (why: string) =>
  new AppError('invalid_identity_token', `The identity token is not accepted: ${why}.`);

/** Why jose refused a token, in the integrator's terms (never the token itself). */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) {
    return error.claim === 'iat' ? 'iat is more than 24 hours ago' : 'it has expired (exp)';
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'aud is not this site’s siteKey';
    if (error.claim === 'iat' && error.reason === 'check_failed') return 'iat is in the future';
    if (error.reason === 'missing') return `the ${error.claim} claim is missing`;
    return `the ${error.claim} claim is invalid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'it must be signed with HS256';
  if (error instanceof errors.JOSENotSupported) return 'it must be signed with HS256';
  if (error instanceof errors.JOSEError) return 'it is not a well-formed signed JWT';
  throw error;
}

/**
 * The account id of a valid token for `audience`, signed with one of `keys` (the channel's active
 * secrets, newest first); otherwise a 401 invalid_identity_token saying why.
 */
export async function verifyIdentityToken(
  token: string,
  keys: readonly Uint8Array[],
  audience: string,
  now: Date,
): Promise<string> {
  if (token.length > IDENTITY_TOKEN_MAX_CHARS) {
    throw invalidIdentityToken(`it is longer than ${IDENTITY_TOKEN_MAX_CHARS} characters`);
  }
  if (!COMPACT_JWS.test(token)) throw invalidIdentityToken('it is not a signed JWT (three base64url parts)');
  if (keys.length === 0) throw invalidIdentityToken('the channel has no active identity secret');
  for (const key of keys) {
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        audience,
        currentDate: now,
        clockTolerance: CLOCK_TOLERANCE_S,
        // Requires iat, refuses one in the future (beyond the tolerance) or more than a day old.
        maxTokenAge: IDENTITY_TOKEN_MAX_LIFETIME_S,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      // Another active secret may have signed it (a rotation): only a signature mismatch tries the next.
      if (error instanceof errors.JWSSignatureVerificationFailed) continue;
      throw invalidIdentityToken(reasonOf(error));
    }
    const { sub, iat, exp } = payload as { sub: unknown; iat: number; exp: number };
    if (exp - iat > IDENTITY_TOKEN_MAX_LIFETIME_S) {
      throw invalidIdentityToken('exp is more than 24 hours after iat');
    }
    if (typeof sub !== 'string' || sub.length === 0 || sub.length > ACCOUNT_ID_MAX_CHARS) {
      throw invalidIdentityToken(`sub must be the account id, 1 to ${ACCOUNT_ID_MAX_CHARS} characters`);
    }
    return sub;
  }
  throw invalidIdentityToken('its signature matches no active identity secret of the channel');
}
