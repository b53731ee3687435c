import { and, eq, isNull } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { members, organizations } from '../organizations/organizations.tables.ts';
import { type MemberSessionRow, memberSessions } from './console.tables.ts';

const byId = (organizationId: string, id: string) =>
  and(eq(memberSessions.organizationId, organizationId), eq(memberSessions.id, id));

export const sessionsRepo = {
  async insert(tx: Tx, row: MemberSessionRow): Promise<void> {
    await tx.insert(memberSessions).values(row);
  },

  /** A live (not signed-out) session by its token hash, with its member and organization limit. */
  async findByTokenHash(db: Db, tokenHash: string) {
    const [row] = await db
      .select({
        session: memberSessions,
        email: members.email,
        role: members.role,
        organizationName: organizations.name,
        rateLimitPerMinute: organizations.rateLimitPerMinute,
      })
      .from(memberSessions)
      .innerJoin(
        members,
        and(
          eq(members.organizationId, memberSessions.organizationId),
          eq(members.id, memberSessions.memberId),
        ),
      )
      .innerJoin(organizations, eq(organizations.id, memberSessions.organizationId))
      .where(and(eq(memberSessions.tokenHash, tokenHash), isNull(memberSessions.revokedAt)));
    return row;
  },

  async touch(tx: Tx, session: MemberSessionRow, at: Date): Promise<void> {
    await tx.update(memberSessions).set({ lastSeenAt: at }).where(byId(session.organizationId, session.id));
  },

  async setEnvironment(tx: Tx, session: MemberSessionRow, environment: Environment): Promise<void> {
    await tx.update(memberSessions).set({ environment }).where(byId(session.organizationId, session.id));
  },

  async revoke(tx: Tx, session: MemberSessionRow, at: Date): Promise<void> {
    await tx.update(memberSessions).set({ revokedAt: at }).where(byId(session.organizationId, session.id));
  },

  /** Ends every session of a member (a password change signs them out everywhere). */
  async revokeAllOfMember(tx: Tx, organizationId: string, memberId: string, at: Date): Promise<void> {
    await tx
      .update(memberSessions)
      .set({ revokedAt: at })
      .where(
        and(
          eq(memberSessions.organizationId, organizationId),
          eq(memberSessions.memberId, memberId),
          isNull(memberSessions.revokedAt),
        ),
      );
  },
};
