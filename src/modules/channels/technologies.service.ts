import type { Static } from '@sinclair/typebox';
import type { Db, DbScope, Tx } from '../../platform/db/store.ts';
import { notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import { type ChannelPartsDeps, channelPartList } from './channel-changes.ts';
import type { CreateTechnologyBody, UpdateTechnologyBody } from './channel-parts.schemas.ts';
import type { ChannelRow, TechnologyRow } from './channels.repo.ts';
import type { Cookie } from './channels.tables.ts';
import { purposesRepo } from './purposes.repo.ts';
import { technologiesRepo } from './technologies.repo.ts';

export type CreateTechnologyInput = Static<typeof CreateTechnologyBody>;
export type UpdateTechnologyInput = Static<typeof UpdateTechnologyBody>;

function normalizeCookies(
  input: Array<{ name: string; domain?: string | null; maxAgeSeconds?: number | null }>,
) {
  return input.map(
    (c): Cookie => ({ name: c.name, domain: c.domain ?? null, maxAgeSeconds: c.maxAgeSeconds ?? null }),
  );
}

/** Host names compare case-insensitively; one entry per host. */
function normalizeHosts(input: string[]): string[] {
  return [...new Set(input.map((host) => host.toLowerCase()))];
}

export function createTechnologiesService({ store, clock, audit, changes }: ChannelPartsDeps) {
  /** purposeKeys must name active purposes of the channel (checked under the channel's lock). */
  async function checkPurposeKeys(tx: Tx, channel: ChannelRow, purposeKeys: string[]) {
    const active = new Set(
      (await purposesRepo.all(tx, channel)).filter((p) => p.status === 'active').map((p) => p.key),
    );
    const errors = purposeKeys.flatMap((key, i) =>
      active.has(key)
        ? []
        : [{ path: `/purposeKeys/${i}`, message: `names no active purpose of the channel ("${key}")` }],
    );
    if (errors.length > 0) throw validationFailed(errors);
  }

  // No row lock of its own: every change to a technology holds its channel's lock first.
  async function technologyOf(db: Db, channel: ChannelRow, technologyId: string): Promise<TechnologyRow> {
    const technology = await technologiesRepo.find(db, channel, technologyId);
    if (!technology) throw notFound('technology');
    return technology;
  }

  return {
    create(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      input: CreateTechnologyInput,
    ): Promise<TechnologyRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId);
        const purposeKeys = input.purposeKeys ?? [];
        await checkPurposeKeys(tx, channel, purposeKeys);
        const now = clock.now();
        const technology: TechnologyRow = {
          organizationId: channel.organizationId,
          id: newId('tec'),
          environment: channel.environment,
          channelId: channel.id,
          name: input.name,
          vendor: input.vendor ?? null,
          purposeKeys,
          cookies: normalizeCookies(input.cookies ?? []),
          hosts: normalizeHosts(input.hosts ?? []),
          createdAt: now,
          updatedAt: now,
        };
        await technologiesRepo.insert(tx, technology);
        await audit.record(tx, context, {
          action: 'technology.created',
          target: { type: 'technology', id: technology.id },
        });
        await changes.publish(tx, channel, { changed: false });
        return technology;
      });
    },

    async get(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      technologyId: string,
    ): Promise<TechnologyRow> {
      const channel = await changes.find(db.read, context, channelId);
      return technologyOf(db.read, channel, technologyId);
    },

    /** Every technology of a channel the caller already holds (the scan job judges findings by them). */
    ofChannel: (channel: ChannelRow) => technologiesRepo.all(store.db, channel),

    list: channelPartList(changes, technologiesRepo.list),

    update(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      technologyId: string,
      input: UpdateTechnologyInput,
    ) {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId);
        const technology = await technologyOf(tx, channel, technologyId);
        if (input.purposeKeys !== undefined) await checkPurposeKeys(tx, channel, input.purposeKeys);
        const updated = await technologiesRepo.update(tx, technology, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.vendor !== undefined && { vendor: input.vendor }),
          ...(input.purposeKeys !== undefined && { purposeKeys: input.purposeKeys }),
          ...(input.cookies !== undefined && { cookies: normalizeCookies(input.cookies) }),
          ...(input.hosts !== undefined && { hosts: normalizeHosts(input.hosts) }),
          updatedAt: clock.now(),
        });
        await audit.record(tx, context, {
          action: 'technology.updated',
          target: { type: 'technology', id: technologyId },
        });
        await changes.publish(tx, channel, { changed: false });
        return updated;
      });
    },

    delete(db: DbScope, context: AuditContext, channelId: string, technologyId: string): Promise<void> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId);
        const technology = await technologyOf(tx, channel, technologyId);
        await technologiesRepo.delete(tx, technology);
        await audit.record(tx, context, {
          action: 'technology.deleted',
          target: { type: 'technology', id: technologyId },
        });
        await changes.publish(tx, channel, { changed: false });
      });
    },
  };
}
