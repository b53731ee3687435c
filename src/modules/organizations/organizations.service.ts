import { randomBytes } from 'node:crypto';
import { PRINCIPAL_CHANGES } from '../../platform/auth/principal-changes.ts';
import { ROLES, type Role } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { Db, Store, Tx } from '../../platform/db/store.ts';
import { newId } from '../../platform/ids.ts';
import { type MemberRow, type OrganizationRow, organizationsRepo } from './organizations.repo.ts';

/** Errors of the CLI-managed organization operations; the CLI prints the message on one line. */
export class OrganizationError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createOrganizationsService({
  store,
  clock,
}: {
  store: Pick<Store, 'db' | 'notify'>;
  clock: Clock;
}) {
  return {
    async createOrganization(tx: Tx, name: string): Promise<OrganizationRow> {
      const trimmed = name.trim();
      if (!trimmed || trimmed.length > 200)
        throw new OrganizationError('organization name must be 1-200 characters');
      const row: OrganizationRow = {
        id: newId('org'),
        name: trimmed,
        pseudonymSecret: randomBytes(32),
        rateLimitPerMinute: null,
        createdAt: clock.now(),
      };
      await organizationsRepo.insertOrganization(tx, row);
      return row;
    },

    async addMember(tx: Tx, organizationId: string, email: string, role: string): Promise<MemberRow> {
      const normalized = email.trim().toLowerCase();
      if (!EMAIL.test(normalized) || normalized.length > 320)
        throw new OrganizationError(`invalid email: ${email}`);
      if (!(ROLES as readonly string[]).includes(role)) {
        throw new OrganizationError(`role must be one of ${ROLES.join(', ')}`);
      }
      if (!(await organizationsRepo.findOrganization(tx, organizationId))) {
        throw new OrganizationError(`no organization ${organizationId}`);
      }
      const row: MemberRow = {
        organizationId,
        id: newId('mem'),
        email: normalized,
        role: role as Role,
        passwordHash: null,
        createdAt: clock.now(),
      };
      try {
        await organizationsRepo.insertMember(tx, row);
      } catch (error) {
        if (isUniqueViolation(error, 'members_organization_email_key')) {
          throw new OrganizationError(`${normalized} is already a member of ${organizationId}`);
        }
        throw error;
      }
      return row;
    },

    /** `db`: the caller's read handle (`DbScope.read`) when it has one. */
    getOrganization: (id: string, db: Db = store.db) => organizationsRepo.findOrganization(db, id),

    /** The organization of that name (trimmed, as createOrganization stores it), if any. */
    findOrganizationByName: (name: string) => organizationsRepo.findOrganizationByName(store.db, name.trim()),

    /** The first `limit` organizations (by id): the CLI's `init` takes the only one when there is one. */
    listOrganizations: (limit: number) => organizationsRepo.listOrganizations(store.db, limit),

    /** False on a fresh store, where `npm start` says how to bootstrap. */
    hasOrganizations: () => organizationsRepo.anyOrganization(store.db),

    /** A member by id or email (read through `db`, the caller's transaction if it has one). */
    async findMember(
      organizationId: string,
      idOrEmail: string,
      db: Db = store.db,
    ): Promise<MemberRow | undefined> {
      return idOrEmail.startsWith('mem_')
        ? organizationsRepo.findMember(db, organizationId, idOrEmail)
        : organizationsRepo.findMemberByEmail(db, organizationId, idOrEmail.trim().toLowerCase());
    },

    /** Memberships of an email (normalized as on add), at most `limit`, for the console's sign-in. */
    membershipsByEmail: (email: string, limit: number) =>
      organizationsRepo.findMembershipsByEmail(store.db, email.trim().toLowerCase(), limit),

    /** Stores a password hash (hashing is the console module's; this module only keeps the column). */
    async setPasswordHash(tx: Tx, organizationId: string, memberId: string, hash: string): Promise<void> {
      await organizationsRepo.setPasswordHash(tx, organizationId, memberId, hash);
    },

    /** Sets an organization's rate limit in the caller's transaction `tx` (the CLI audits it there). */
    async setRateLimit(tx: Tx, organizationId: string, perMinute: number | null): Promise<void> {
      if (!(await organizationsRepo.setRateLimit(tx, organizationId, perMinute))) {
        throw new OrganizationError(`no organization ${organizationId}`);
      }
      // API replicas cache principals, which carry the limit: the new one applies at once everywhere.
      await store.notify(tx, PRINCIPAL_CHANGES);
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
