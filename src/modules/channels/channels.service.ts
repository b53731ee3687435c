import type { Static } from '@sinclair/typebox';
import type { Environment } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { Db, DbScope, Store, Tx } from '../../platform/db/store.ts';
import { notFound } from '../../platform/http/errors.ts';
import { newId, randomBase62 } from '../../platform/ids.ts';
import { createLoadingCache } from '../../platform/loading-cache.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import { DEFAULT_CONSENT_MAX_AGE_DAYS, DEFAULT_REGION_RULES } from '../regions/regions.schemas.ts';
import { assertRegionRules } from '../regions/regions.service.ts';
import {
  assertAtpProviders,
  assertTcfSettings,
  assertTcfVendors,
  tcfSettings,
} from '../tcf/settings/tcf-settings.service.ts';
import type { TcfService } from '../tcf/tcf.service.ts';
import type { EventsService } from '../webhooks/events.service.ts';
import { appsRepo } from './apps.repo.ts';
import { createAppsService } from './apps.service.ts';
import { createChannelChanges } from './channel-changes.ts';
import { type ChannelRow, type ChannelUpdate, channelsRepo, configVersionsRepo } from './channels.repo.ts';
import type { CreateChannelBody, UpdateChannelBody } from './channels.schemas.ts';
import { assertFirstPartySettings } from './first-party-check.ts';
import { originsRepo } from './origins.repo.ts';
import { createOriginsService } from './origins.service.ts';
import { createPurposesService } from './purposes.service.ts';
import { createTechnologiesService } from './technologies.service.ts';
import { snapshotConfig, type VisitorConfig } from './visitor-config.ts';

export type CreateChannelInput = Static<typeof CreateChannelBody>;
export type UpdateChannelInput = Static<typeof UpdateChannelBody>;

const DEFAULT_RETENTION_DAYS = 1825;
/** Vendor list versions kept of recently asked channels (a channel holds one per week of TCF). */
const USED_LIST_VERSIONS_KEPT = 100_000;

export function createChannelsService(deps: {
  store: Pick<Store, 'db' | 'notify' | 'savepoint'>;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  events: Pick<EventsService, 'emit'>;
  /** The IAB vendor list mirror: TCF settings are checked against its newest list. */
  tcf: Pick<TcfService, 'latestVendorList' | 'requestFetch' | 'atpProviders' | 'requestAtpFetch'>;
}) {
  const { store, clock, audit } = deps;
  const changes = createChannelChanges({ store, clock, events: deps.events, vendorLists: deps.tcf });
  const parts = { store, clock, audit, changes };

  /** TCF settings as written (null clears them), checked against the newest vendor list in `tx`. */
  async function checkedTcf(
    tx: Tx,
    input: CreateChannelInput['tcf'],
    environment: Environment,
  ): Promise<ChannelRow['tcf']> {
    if (!input) return null;
    const settings = tcfSettings(input);
    assertTcfSettings(settings);
    const list = await deps.tcf.latestVendorList(tx);
    // None held: the worker fetches nothing while no channel uses TCF, so this asks it to, in a
    // transaction of its own once this one (about to fail) has settled, as for Google's list below:
    // asked from inside it, the store refused the ask (a transaction of the same flow), and saved
    // settings never asked at all.
    if (!list) setTimeout(() => void deps.tcf.requestFetch().catch(() => {}), 0);
    assertTcfVendors(list, settings, clock.now(), environment);
    if (settings.googleAdditionalConsent) {
      const providers = await deps.tcf.atpProviders(tx);
      // None held: ask the worker for Google's list in a transaction of its own, once this one (about
      // to fail) has settled: a store.tx opened inside it would wait for it forever on the embedded
      // store. A timer runs after the throw below has unwound it.
      if (!providers) setTimeout(() => void deps.tcf.requestAtpFetch().catch(() => {}), 0);
      assertAtpProviders(providers, settings);
    }
    return settings;
  }

  async function insertChannel(
    db: DbScope,
    context: AuditContext,
    input: CreateChannelInput,
  ): Promise<ChannelRow> {
    if (input.regionRules) assertRegionRules(input.regionRules);
    const now = clock.now();
    const channel: ChannelRow = {
      organizationId: context.organizationId,
      id: newId('ch'),
      environment: context.environment,
      name: input.name,
      description: input.description ?? null,
      status: 'active',
      siteKey: `site_${context.environment}_${randomBase62(24)}`,
      privacyPolicyUrl: input.privacyPolicy?.url ?? null,
      privacyPolicyVersion: input.privacyPolicy?.version ?? '1',
      retentionDays: input.privacyPolicy?.retentionDays ?? DEFAULT_RETENTION_DAYS,
      configVersion: 1,
      defaultLanguage: input.defaultLanguage ?? 'en',
      regionRules: input.regionRules ?? structuredClone(DEFAULT_REGION_RULES as ChannelRow['regionRules']),
      consentMaxAgeDays: input.consentMaxAgeDays ?? DEFAULT_CONSENT_MAX_AGE_DAYS,
      rejectCooldownDays: input.rejectCooldownDays ?? 0,
      gppCmpId: input.gppCmpId ?? null,
      gppSections: input.gppSections ?? 'usnat',
      tcf: null,
      integrations: { microsoftUet: false, microsoftClarity: false, ...input.integrations },
      reopenControl: input.reopenControl ?? 'floating',
      firstPartyPath: input.firstPartyPath ?? null,
      cookieDomain: input.cookieDomain ?? null,
      crossDomain: input.crossDomain ?? false,
      imports: input.imports ?? [],
      platform: input.platform ?? 'web',
      createdAt: now,
      updatedAt: now,
      archivedAt: null,
    };
    return db.write(async (tx) => {
      await assertFirstPartySettings(tx, null, input);
      channel.tcf = await checkedTcf(tx, input.tcf, context.environment);
      await channelsRepo.insert(tx, channel);
      await changes.publishFirst(tx, channel);
      await audit.record(tx, context, {
        action: 'channel.created',
        target: { type: 'channel', id: channel.id },
      });
      await changes.emitChannelEvent(tx, 'channel.created', channel);
      return channel;
    });
  }

  /** The visitor config of one of the channel's versions, or null if it never had that version. */
  async function findConfigVersion(channel: ChannelRow, version: number): Promise<VisitorConfig | null> {
    if (!Number.isInteger(version) || version < 1 || version > channel.configVersion) return null;
    const row = await configVersionsRepo.find(store.db, channel, version);
    return row ? snapshotConfig(row.snapshot) : null;
  }

  /**
   * The vendor list versions a channel's configs were made with, by channel and configVersion (a
   * new config version may add one): read once per process for each, by one query however many
   * requests ask at once, and kept for the most recently asked channels.
   */
  const usedListVersions = createLoadingCache<string, ReadonlySet<number>>({
    maxWeight: USED_LIST_VERSIONS_KEPT,
    async load(key) {
      const [organizationId, id] = key.split(' ');
      const versions = new Set(await configVersionsRepo.vendorListVersions(store.db, { organizationId, id }));
      return { value: versions, weight: 1 + versions.size };
    },
  });

  /**
   * Whether one of the channel's config versions was made with vendor list `version`: the only
   * versions its public vendor list answers for (a TC string of its visitors names one of them).
   */
  async function usedVendorListVersion(channel: ChannelRow, version: number): Promise<boolean> {
    const key = `${channel.organizationId} ${channel.id} ${channel.configVersion}`;
    return (await usedListVersions.get(key)).has(version);
  }

  /**
   * The channel's current notice for the public site endpoints: its config, and the newest version
   * that asked visitors again (the config's `consentRequiredSince`).
   */
  async function currentNotice(
    channel: ChannelRow,
  ): Promise<{ config: VisitorConfig; consentRequiredSince: number } | null> {
    const row = await configVersionsRepo.find(store.db, channel, channel.configVersion);
    return row
      ? { config: snapshotConfig(row.snapshot), consentRequiredSince: row.consentRequiredSince }
      : null;
  }

  return {
    purposes: createPurposesService(parts),
    technologies: createTechnologiesService(parts),
    origins: createOriginsService(parts),
    apps: createAppsService(parts),

    async create(db: DbScope, context: AuditContext, input: CreateChannelInput): Promise<ChannelRow> {
      // 24 base62 characters make a collision practically impossible; one retry covers the rest.
      try {
        return await insertChannel(db, context, input);
      } catch (error) {
        if (!isUniqueViolation(error, 'channels_site_key_key')) throw error;
        return insertChannel(db, context, input);
      }
    },

    get: (db: DbScope, context: AuditContext, id: string) => changes.find(db.read, context, id),

    list(
      db: DbScope,
      context: AuditContext,
      limit: number,
      after: CursorPosition | null,
    ): Promise<ChannelRow[]> {
      return channelsRepo.list(db.read, context.organizationId, context.environment, limit, after);
    },

    /**
     * Name, description and retentionDays change the channel only; defaultLanguage, the policy's
     * url and version, regionRules, consentMaxAgeDays, rejectCooldownDays, gppSections, tcf and
     * integrations, and the first-party settings (firstPartyPath, cookieDomain, crossDomain,
     * imports) change what visitors are shown or how their SDK keeps the choice, so they publish a
     * new configVersion (rejectCooldownDays, gppSections, integrations and the first-party settings
     * never a material one: they change the signals sent or where the choice is kept, not what the
     * visitor is asked).
     */
    update(db: DbScope, context: AuditContext, id: string, input: UpdateChannelInput): Promise<ChannelRow> {
      if (input.regionRules) assertRegionRules(input.regionRules);
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, id);
        const update: ChannelUpdate = { updatedAt: clock.now() };
        if (input.name !== undefined) update.name = input.name;
        if (input.description !== undefined) update.description = input.description;
        if (input.defaultLanguage !== undefined) update.defaultLanguage = input.defaultLanguage;
        const policy = input.privacyPolicy ?? {};
        if (policy.url !== undefined) update.privacyPolicyUrl = policy.url;
        if (policy.version !== undefined) update.privacyPolicyVersion = policy.version;
        if (policy.retentionDays !== undefined) update.retentionDays = policy.retentionDays;
        if (input.regionRules !== undefined) update.regionRules = input.regionRules;
        if (input.consentMaxAgeDays !== undefined) update.consentMaxAgeDays = input.consentMaxAgeDays;
        if (input.rejectCooldownDays !== undefined) update.rejectCooldownDays = input.rejectCooldownDays;
        if (input.gppCmpId !== undefined) update.gppCmpId = input.gppCmpId;
        if (input.gppSections !== undefined) update.gppSections = input.gppSections;
        if (input.integrations !== undefined) {
          update.integrations = { ...channel.integrations, ...input.integrations };
        }
        if (input.reopenControl !== undefined) update.reopenControl = input.reopenControl;
        await assertFirstPartySettings(tx, channel, input);
        if (input.firstPartyPath !== undefined) update.firstPartyPath = input.firstPartyPath;
        if (input.cookieDomain !== undefined) update.cookieDomain = input.cookieDomain;
        if (input.crossDomain !== undefined) update.crossDomain = input.crossDomain;
        if (input.imports !== undefined) update.imports = input.imports;
        if (input.tcf !== undefined) {
          // PATCH replaces tcf as a whole, but for unknownRegion: left out, the channel keeps its
          // own, so a client that does not know the field (a console of before it) never turns a
          // "not_applicable" back into "gdpr" by saving the other settings.
          const kept = channel.tcf?.unknownRegion;
          const tcf =
            input.tcf && input.tcf.unknownRegion === undefined && kept
              ? { ...input.tcf, unknownRegion: kept }
              : input.tcf;
          update.tcf = await checkedTcf(tx, tcf, channel.environment);
        }
        const updated = await channelsRepo.update(tx, channel, update);
        await audit.record(tx, context, { action: 'channel.updated', target: { type: 'channel', id } });
        return changes.publish(tx, updated, { changed: true });
      });
    },

    archive(db: DbScope, context: AuditContext, id: string): Promise<ChannelRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, id);
        const now = clock.now();
        const archived = await channelsRepo.update(tx, channel, {
          status: 'archived',
          archivedAt: now,
          updatedAt: now,
        });
        await audit.record(tx, context, { action: 'channel.archived', target: { type: 'channel', id } });
        await changes.emitChannelEvent(tx, 'channel.archived', archived);
        return archived;
      });
    },

    /**
     * Re-snapshots every active TCF channel after the mirror stored a new vendor list version
     * (`onNewVendorList`, in the mirror's transaction): each gets a new configVersion made with
     * it, material only where its vendors now declare more (tcf-settings.service.ts), or where the TCF
     * policy version changed. `version` is the one stored; snapshots take the newest list.
     */
    async adoptVendorList(tx: Tx, version: number): Promise<number> {
      void version;
      let adopted = 0;
      for (const { organizationId, environment, id } of await channelsRepo.activeTcfChannels(tx)) {
        const channel = await changes.lockActive(tx, { organizationId, environment }, id);
        const published = await changes.publish(tx, channel, { changed: false });
        if (published.configVersion !== channel.configVersion) adopted++;
      }
      return adopted;
    },

    async listConfigVersions(
      db: DbScope,
      context: AuditContext,
      id: string,
      limit: number,
      beforeVersion: number | null,
    ) {
      const channel = await changes.find(db.read, context, id);
      return configVersionsRepo.list(db.read, channel, limit, beforeVersion);
    },

    async getConfigVersion(db: DbScope, context: AuditContext, id: string, version: number) {
      const channel = await changes.find(db.read, context, id);
      const row = await configVersionsRepo.find(db.read, channel, version);
      if (!row) throw notFound('config version');
      return row;
    },

    // Reads for the public site endpoints: no API key, so no organization context.

    findConfigVersion,
    usedVendorListVersion,

    /**
     * A channel by id without an audit context (visitor receipts, scans, and the 404 of modules that
     * read their own tables: consent state, analytics); archived ones included. `db`: the caller's read
     * handle (`DbScope.read`) when it has one; the modules that read the replica check on the primary.
     */
    findChannel: (organizationId: string, environment: Environment, id: string, db: Db = store.db) =>
      channelsRepo.find(db, organizationId, environment, id),
    currentNotice,

    /** The active channel of a site key without its config (a cheap check of its status and configVersion). */
    async findActiveChannelBySiteKey(siteKey: string): Promise<ChannelRow | null> {
      const channel = await channelsRepo.findBySiteKey(store.db, siteKey);
      return channel?.status === 'active' ? channel : null;
    },

    /**
     * The channel's active origins, normalized (match a browser's Origin with `originMatches`).
     * `db`: the caller's read handle (`DbScope.read`) when it may be inside a transaction.
     */
    activeOrigins: (channel: ChannelRow, db: Db = store.db): Promise<string[]> =>
      originsRepo.active(db, channel),

    /** An app channel's active app ids (docs/guides/apps.md); [] for a web channel. */
    activeApps: (channel: ChannelRow, db: Db = store.db): Promise<string[]> =>
      channel.platform === 'app' ? appsRepo.active(db, channel) : Promise.resolve([]),
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;

export type { VisitorConfig } from './channels.schemas.ts';
// What other modules may use of channels besides the service: sites resolve origins, follow
// channel changes and serve the visitor config.
export { CHANNEL_CHANGES } from './channels.schemas.ts';
export type { ChannelRow } from './channels.tables.ts';
