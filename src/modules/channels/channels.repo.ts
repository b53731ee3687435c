import { and, asc, desc, eq, isNotNull, lt, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import { keysetValues, olderThanPlaceholder, preparedQueries } from '../../platform/db/prepared.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import {
  type ChannelRow,
  channelConfigVersions,
  channels,
  type origins,
  type purposes,
  type technologies,
} from './channels.tables.ts';

export type { ChannelRow };
export type PurposeRow = typeof purposes.$inferSelect;
export type TechnologyRow = typeof technologies.$inferSelect;
export type OriginRow = typeof origins.$inferSelect;
export type ConfigVersionRow = typeof channelConfigVersions.$inferSelect;

export type ChannelUpdate = Partial<
  Pick<
    ChannelRow,
    | 'name'
    | 'description'
    | 'defaultLanguage'
    | 'privacyPolicyUrl'
    | 'privacyPolicyVersion'
    | 'retentionDays'
    | 'regionRules'
    | 'consentMaxAgeDays'
    | 'rejectCooldownDays'
    | 'gppCmpId'
    | 'gppSections'
    | 'reopenControl'
    | 'tcf'
    | 'integrations'
    | 'firstPartyPath'
    | 'cookieDomain'
    | 'crossDomain'
    | 'imports'
    | 'configVersion'
    | 'status'
    | 'archivedAt'
    | 'updatedAt'
  >
>;

const channelIs = (organizationId: string, environment: Environment, id: string) =>
  and(
    eq(channels.organizationId, organizationId),
    eq(channels.environment, environment),
    eq(channels.id, id),
  );

const listQuery = preparedQueries('channels_list', (db, name, variant) =>
  db
    .select()
    .from(channels)
    .where(
      and(
        eq(channels.organizationId, sql.placeholder('organizationId')),
        eq(channels.environment, sql.placeholder('environment')),
        variant === 'after' ? olderThanPlaceholder(channels.createdAt, channels.id) : undefined,
      ),
    )
    .orderBy(desc(channels.createdAt), desc(channels.id))
    .limit(sql.placeholder('limit'))
    .prepare(name),
);

export const channelsRepo = {
  async insert(tx: Tx, row: ChannelRow): Promise<void> {
    await tx.insert(channels).values(row);
  },

  async find(db: Db, organizationId: string, environment: Environment, id: string) {
    const [row] = await db
      .select()
      .from(channels)
      .where(channelIs(organizationId, environment, id));
    return row as ChannelRow | undefined;
  },

  /**
   * Locks the channel for a change to it or its parts: changes to one channel serialize, so each
   * configVersion is built from exactly the rows the change left. `share` lets changes that never
   * touch the version (origins) run side by side while still excluding an archive.
   */
  async findForUpdate(
    tx: Tx,
    organizationId: string,
    environment: Environment,
    id: string,
    strength: 'update' | 'share' = 'update',
  ) {
    const [row] = await tx
      .select()
      .from(channels)
      .where(channelIs(organizationId, environment, id))
      .for(strength);
    return row as ChannelRow | undefined;
  },

  async findBySiteKey(db: Db, siteKey: string) {
    const [row] = await db.select().from(channels).where(eq(channels.siteKey, siteKey));
    return row as ChannelRow | undefined;
  },

  /** Newest first, limit + 1 rows: a prepared statement, since every console page load lists channels. */
  list(
    db: Db,
    organizationId: string,
    environment: Environment,
    limit: number,
    after: CursorPosition | null,
  ): Promise<ChannelRow[]> {
    const values = { organizationId, environment, limit: limit + 1 };
    return after
      ? listQuery(db, 'after').execute({ ...values, ...keysetValues(after) })
      : listQuery(db, 'first').execute(values);
  },

  /** Every active channel with TCF settings, in every organization (a new vendor list concerns them all). */
  activeTcfChannels(tx: Tx): Promise<Array<Pick<ChannelRow, 'organizationId' | 'environment' | 'id'>>> {
    return tx
      .select({ organizationId: channels.organizationId, environment: channels.environment, id: channels.id })
      .from(channels)
      .where(and(isNotNull(channels.tcf), eq(channels.status, 'active')))
      .orderBy(asc(channels.organizationId), asc(channels.id));
  },

  async update(tx: Tx, channel: ChannelRow, changes: ChannelUpdate): Promise<ChannelRow> {
    const [row] = await tx
      .update(channels)
      .set(changes)
      .where(and(eq(channels.organizationId, channel.organizationId), eq(channels.id, channel.id)))
      .returning();
    return row;
  },
};

export const configVersionsRepo = {
  async insert(tx: Tx, row: ConfigVersionRow): Promise<void> {
    await tx.insert(channelConfigVersions).values(row);
  },

  async find(db: Db, channel: Pick<ChannelRow, 'organizationId' | 'id'>, version: number) {
    const [row] = await db
      .select()
      .from(channelConfigVersions)
      .where(
        and(
          eq(channelConfigVersions.organizationId, channel.organizationId),
          eq(channelConfigVersions.channelId, channel.id),
          eq(channelConfigVersions.version, version),
        ),
      );
    return row as ConfigVersionRow | undefined;
  },

  /**
   * The vendor list versions the channel's config versions were made with (TCF turned on), in no
   * order. Reads every snapshot of the channel: callers keep the answer (channels.service.ts).
   */
  async vendorListVersions(db: Db, channel: Pick<ChannelRow, 'organizationId' | 'id'>): Promise<number[]> {
    const version = sql<string | null>`${channelConfigVersions.snapshot} -> 'tcf' ->> 'vendorListVersion'`;
    const rows = await db
      .selectDistinct({ version })
      .from(channelConfigVersions)
      .where(
        and(
          eq(channelConfigVersions.organizationId, channel.organizationId),
          eq(channelConfigVersions.channelId, channel.id),
        ),
      );
    return rows.map((r) => Number(r.version)).filter((v) => Number.isInteger(v) && v > 0);
  },

  /** Newest first; `before` is the last version of the previous page. */
  list(
    db: Db,
    channel: Pick<ChannelRow, 'organizationId' | 'id'>,
    limit: number,
    before: number | null,
  ): Promise<ConfigVersionRow[]> {
    return db
      .select()
      .from(channelConfigVersions)
      .where(
        and(
          eq(channelConfigVersions.organizationId, channel.organizationId),
          eq(channelConfigVersions.channelId, channel.id),
          before === null ? undefined : lt(channelConfigVersions.version, before),
        ),
      )
      .orderBy(desc(channelConfigVersions.version))
      .limit(limit + 1);
  },
};
