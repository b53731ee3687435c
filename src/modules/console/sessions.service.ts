import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MemberPrincipal } from '../../platform/auth/principal.ts';
import { type Environment, ROLE_SCOPES, type Role } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import { AppError } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import { OrganizationError, type OrganizationsService } from '../organizations/organizations.service.ts';
import type { MemberSessionRow } from './console.tables.ts';
import { dummyPasswordHash, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { sessionsRepo } from './sessions.repo.ts';

/** A session ends 12 hours after sign-in whatever happens, or after 2 hours without a request. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 2 * 60 * 60 * 1000;
// last_seen_at is written at most once a minute: the idle limit does not need more precision.
const TOUCH_RESOLUTION_MS = 60_000;
/** The memberships one sign-in checks at most (an email in more organizations must name one). */
const MAX_MEMBERSHIPS = 5;

export const SIGN_IN_FAILED = 'Email or password is incorrect.';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The CSRF token is derived from the session token, so it needs no storage and dies with it. */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('consent-service csrf v1').digest('base64url');
}

function sameToken(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface SessionView {
  session: MemberSessionRow;
  email: string;
  role: Role;
  organizationName: string;
  rateLimitPerMinute: number | null;
}

/** A refused password or unknown member: the CLI prints it on one line (exit 1). */
export class PasswordError extends OrganizationError {}

/** The audit context of a session's own sign-in and sign-out: its member acted. */
const contextOf = (session: MemberSessionRow, meta: { requestId: string | null; ipPrefix: string | null }) =>
  ({
    organizationId: session.organizationId,
    environment: session.environment,
    actor: { type: 'member', id: session.memberId },
    ...meta,
  }) satisfies AuditContext;

/** Neither signed out, past its absolute end, nor idle past SESSION_IDLE_MS. */
function isAlive(session: MemberSessionRow, now: Date): boolean {
  return (
    session.revokedAt === null &&
    now.getTime() < session.expiresAt.getTime() &&
    now.getTime() - session.lastSeenAt.getTime() < SESSION_IDLE_MS
  );
}

export function createSessionsService(deps: {
  store: Pick<Store, 'db' | 'tx'>;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  organizations: Pick<OrganizationsService, 'findMember' | 'membershipsByEmail' | 'setPasswordHash'>;
}) {
  const { store, clock, audit, organizations } = deps;

  return {
    /**
     * Sets (or replaces) a member's password in the caller's transaction `tx` (the CLI audits the
     * change in it); their open sessions end. Returns the member.
     */
    async setPassword(tx: Tx, organizationId: string, memberRef: string, password: string) {
      const problem = passwordProblem(password);
      if (problem) throw new PasswordError(problem);
      const member = await organizations.findMember(organizationId, memberRef, tx);
      if (!member) throw new PasswordError(`no member ${memberRef} in ${organizationId}`);
      const hash = await hashPassword(password);
      await organizations.setPasswordHash(tx, organizationId, member.id, hash);
      await sessionsRepo.revokeAllOfMember(tx, organizationId, member.id, clock.now());
      return member;
    },

    /**
     * Checks email and password and opens a session in the test environment. Every failure is the
     * same 401 with the same detail, and costs one scrypt at least, known email or not. An email
     * with passwords in several organizations must name one (`organizationId`), and is told so
     * only once the password matched.
     */
    async signIn(
      input: { email: string; password: string; organizationId?: string },
      meta: { requestId: string | null; ipPrefix: string | null },
    ): Promise<{ token: string; view: SessionView }> {
      const memberships = (await organizations.membershipsByEmail(input.email, MAX_MEMBERSHIPS)).filter(
        (m) =>
          m.member.passwordHash !== null &&
          (!input.organizationId || m.member.organizationId === input.organizationId),
      );
      const matches: typeof memberships = [];
      if (memberships.length === 0) await verifyPassword(input.password, await dummyPasswordHash());
      for (const m of memberships) {
        if (await verifyPassword(input.password, m.member.passwordHash as string)) matches.push(m);
      }
      if (matches.length === 0) throw new AppError('authentication_required', SIGN_IN_FAILED);
      if (matches.length > 1) {
        const names = matches.map((m) => `${m.member.organizationId} (${m.organizationName})`).join(', ');
        throw new AppError(
          'validation_failed',
          `This email belongs to several organizations; choose one: ${names}.`,
          {
            errors: [{ path: '/organizationId', message: 'required for this email' }],
            extra: {
              organizations: matches.map((m) => ({ id: m.member.organizationId, name: m.organizationName })),
            },
          },
        );
      }
      const { member, organizationName } = matches[0];
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      const session: MemberSessionRow = {
        organizationId: member.organizationId,
        id: newId('ses'),
        memberId: member.id,
        tokenHash: hashToken(token),
        environment: 'test',
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
        revokedAt: null,
      };
      await store.tx(async (tx) => {
        await sessionsRepo.insert(tx, session);
        await audit.record(tx, contextOf(session, meta), {
          action: 'member.signed_in',
          target: { type: 'member', id: member.id },
        });
      });
      const view = {
        session,
        email: member.email,
        role: member.role,
        organizationName,
        rateLimitPerMinute: null,
      };
      return { token, view };
    },

    /** The live session of a cookie token, or null (unknown, signed out, idle or past its end). */
    async find(token: string): Promise<SessionView | null> {
      const found = await sessionsRepo.findByTokenHash(store.db, hashToken(token));
      const now = clock.now();
      if (!found || !isAlive(found.session, now)) return null;
      if (now.getTime() - found.session.lastSeenAt.getTime() >= TOUCH_RESOLUTION_MS) {
        await store.tx((tx) => sessionsRepo.touch(tx, found.session, now));
      }
      return found;
    },

    /** The /v1 principal of a session: the member's role decides the scopes. */
    principalOf(view: SessionView): MemberPrincipal {
      return {
        type: 'member',
        organizationId: view.session.organizationId,
        environment: view.session.environment,
        sessionId: view.session.id,
        memberId: view.session.memberId,
        role: view.role,
        scopes: [...ROLE_SCOPES[view.role]],
        rateLimitPerMinute: view.rateLimitPerMinute,
      };
    },

    /** Whether a state-changing request carries its session's CSRF token. */
    csrfMatches(token: string, header: string | string[] | undefined): boolean {
      return typeof header === 'string' && sameToken(header, csrfTokenFor(token));
    },

    async setEnvironment(view: SessionView, environment: Environment): Promise<void> {
      await store.tx((tx) => sessionsRepo.setEnvironment(tx, view.session, environment));
      view.session.environment = environment;
    },

    async signOut(view: SessionView, meta: { requestId: string | null; ipPrefix: string | null }) {
      await store.tx(async (tx) => {
        await sessionsRepo.revoke(tx, view.session, clock.now());
        await audit.record(tx, contextOf(view.session, meta), {
          action: 'member.signed_out',
          target: { type: 'member', id: view.session.memberId },
        });
      });
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
