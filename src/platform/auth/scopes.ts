/** The closed scope catalogue and what each role may hold (docs/guides/operate.md, "Scopes"). */
export const SCOPES = [
  'evidence:read',
  'exports:create',
  'webhooks:read',
  'webhooks:write',
  'api_keys:read',
  'api_keys:manage',
  'channels:read',
  'channels:manage',
  'audit:read:limited',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Accepted on input, stored as the canonical name. */
export const SCOPE_ALIASES: Record<string, Scope> = { 'webhooks:manage': 'webhooks:write' };

export const ROLES = ['owner', 'admin', 'developer', 'analyst'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  admin: SCOPES,
  developer: SCOPES.filter((s) => s !== 'audit:read:limited'),
  analyst: ['evidence:read', 'webhooks:read', 'api_keys:read', 'channels:read', 'audit:read:limited'],
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Canonical scopes of a request, with the unknown ones apart; duplicates collapse. */
export function normalizeScopes(requested: string[]): { scopes: Scope[]; unknown: string[] } {
  const scopes = new Set<Scope>();
  const unknown: string[] = [];
  for (const raw of requested) {
    const canonical = SCOPE_ALIASES[raw] ?? raw;
    if (isScope(canonical)) scopes.add(canonical);
    else unknown.push(raw);
  }
  return { scopes: SCOPES.filter((s) => scopes.has(s)), unknown };
}

export type Environment = 'test' | 'live';
