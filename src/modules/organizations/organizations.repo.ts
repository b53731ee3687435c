import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../platform/db/store.ts';
import { members, organizations } from './organizations.tables.ts';

export type OrganizationRow = typeof organizations.$inferSelect;
export type MemberRow = typeof members.$inferSelect;

export const organizationsRepo = {
  async insertOrganization(tx: Tx, row: OrganizationRow): Promise<void> {
    await tx.insert(organizations).values(row);
  },

  async insertMember(tx: Tx, row: MemberRow): Promise<void> {
    await tx.insert(members).values(row);
  },

  async findOrganization(db: Db, id: string): Promise<OrganizationRow | undefined> {
    const [row] = await db.select().from(organizations).where(eq(organizations.id, id));
    return row;
  },

  async findOrganizationByName(db: Db, name: string): Promise<OrganizationRow | undefined> {
    const [row] = await db.select().from(organizations).where(eq(organizations.name, name)).limit(1);
    return row;
  },

  /** The first `limit` organizations by id, for a choice among few (the CLI's `init`). */
  listOrganizations(db: Db, limit: number): Promise<OrganizationRow[]> {
    return db.select().from(organizations).orderBy(organizations.id).limit(limit);
  },

  async anyOrganization(db: Db): Promise<boolean> {
    const rows = await db.select({ id: organizations.id }).from(organizations).limit(1);
    return rows.length > 0;
  },

  async findMemberByEmail(db: Db, organizationId: string, email: string): Promise<MemberRow | undefined> {
    const [row] = await db
      .select()
      .from(members)
      .where(and(eq(members.organizationId, organizationId), eq(members.email, email)));
    return row;
  },

  async findMember(db: Db, organizationId: string, id: string): Promise<MemberRow | undefined> {
    const [row] = await db
      .select()
      .from(members)
      .where(and(eq(members.organizationId, organizationId), eq(members.id, id)));
    return row;
  },

  /** Memberships of one email across organizations (the console's sign-in), with the org's name. */
  async findMembershipsByEmail(db: Db, email: string, limit: number) {
    return db
      .select({ member: members, organizationName: organizations.name })
      .from(members)
      .innerJoin(organizations, eq(organizations.id, members.organizationId))
      .where(eq(members.email, email))
      .orderBy(members.organizationId)
      .limit(limit);
  },

  async setPasswordHash(tx: Tx, organizationId: string, id: string, hash: string): Promise<void> {
    await tx
      .update(members)
      .set({ passwordHash: hash })
      .where(and(eq(members.organizationId, organizationId), eq(members.id, id)));
  },

  async setRateLimit(tx: Tx, organizationId: string, perMinute: number | null): Promise<boolean> {
    const rows = await tx
      .update(organizations)
      .set({ rateLimitPerMinute: perMinute })
      .where(eq(organizations.id, organizationId))
      .returning({ id: organizations.id });
    return rows.length > 0;
  },
};
