import {
  normalizeScopes,
  ROLE_SCOPES,
  type Role,
  SCOPE_ALIASES,
  SCOPES,
  type Scope,
} from '../../platform/auth/scopes.ts';
import { AppError, validationFailed } from '../../platform/http/errors.ts';

/**
 * The scope rules: unknown scopes are 422 invalid_scopes; known ones the member's role
 * may not hold, or the calling key does not hold itself, are 403 scope_not_allowed.
 */
export function checkScopes(requested: string[], role: Role, callerScopes: readonly Scope[] | null): Scope[] {
  const { scopes, unknown } = normalizeScopes(requested);
  if (unknown.length > 0) {
    // Quoted, so that an empty or blank name is seen (`Unknown scopes: "".`).
    const named = unknown.map((s) => JSON.stringify(s)).join(', ');
    const aliases = Object.entries(SCOPE_ALIASES).map(([alias, scope]) => `${alias} for ${scope}`);
    const detail = `Unknown scopes: ${named}. Name scopes of the catalogue: ${SCOPES.join(', ')} (or ${aliases.join(', ')}).`;
    throw new AppError('invalid_scopes', detail, {
      extra: { invalidScopes: unknown },
    });
  }
  if (scopes.length === 0) {
    throw validationFailed([{ path: '/scopes', message: 'must name at least one scope' }]);
  }
  const beyondRole = scopes.filter((s) => !ROLE_SCOPES[role].includes(s));
  if (beyondRole.length > 0) {
    throw new AppError('scope_not_allowed', `The ${role} role may not hold: ${beyondRole.join(', ')}.`, {
      extra: { notAllowedScopes: beyondRole },
    });
  }
  const beyondCaller = callerScopes ? scopes.filter((s) => !callerScopes.includes(s)) : [];
  if (beyondCaller.length > 0) {
    throw new AppError(
      'scope_not_allowed',
      `A key can only issue scopes it holds itself; missing: ${beyondCaller.join(', ')}.`,
      { extra: { notAllowedScopes: beyondCaller } },
    );
  }
  return scopes;
}
