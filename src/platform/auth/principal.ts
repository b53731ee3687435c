import type { Environment, Role, Scope } from './scopes.ts';

interface PrincipalBase {
  organizationId: string;
  environment: Environment;
  memberId: string;
  role: Role;
  scopes: Scope[];
  /** The organization's override of ORG_RATE_LIMIT_PER_MINUTE (`orgs set-limit`), if any. */
  rateLimitPerMinute: number | null;
}

/** A caller with `Authorization: Bearer <API key>`. */
export interface ApiKeyPrincipal extends PrincipalBase {
  type: 'api_key';
  keyId: string;
}

/** A member signed in to the console, calling with the session cookie. */
export interface MemberPrincipal extends PrincipalBase {
  type: 'member';
  sessionId: string;
}

/** Who is calling: resolved once per request by the auth hook, read by handlers and the audit log. */
export type Principal = ApiKeyPrincipal | MemberPrincipal;
