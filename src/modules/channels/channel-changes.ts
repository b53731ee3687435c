import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { Db, DbScope, Store, Tx } from '../../platform/db/store.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import { isReconsent } from '../regions/regions.service.ts';
import { isTcfReconsent, snapshotTcf } from '../tcf/settings/tcf-settings.service.ts';
import type { TcfService } from '../tcf/tcf.service.ts';
import type { EventsService } from '../webhooks/events.service.ts';
import { presentChannel } from './channels.presenters.ts';
import { type ChannelRow, channelsRepo, configVersionsRepo } from './channels.repo.ts';
import { CHANNEL_CHANGES } from './channels.schemas.ts';
import { purposesRepo } from './purposes.repo.ts';
import { technologiesRepo } from './technologies.repo.ts';
import {
  buildVisitorConfig,
  sameVisitorConfig,
  snapshotConfig,
  type VisitorConfig,
} from './visitor-config.ts';

export type ChannelEventType = 'channel.created' | 'channel.updated' | 'channel.archived';

/**
 * What every change to a channel or its parts shares: finding the channel in the caller's
 * organization and environment, locking it, refusing changes to an archived one, and publishing a
 * new configVersion when what visitors are shown has changed.
 */
export function createChannelChanges(deps: {
  store: Pick<Store, 'notify'>;
  clock: Clock;
  events: Pick<EventsService, 'emit'>;
  /** The vendor list mirror: a TCF channel's snapshot keeps what its vendors declare in the newest list. */
  vendorLists: Pick<TcfService, 'latestVendorList' | 'atpProviders'>;
}) {
  const { store, clock } = deps;

  async function current(tx: Tx, channel: ChannelRow): Promise<VisitorConfig> {
    // One after the other: a transaction is one session, it runs one query at a time.
    const purposes = await purposesRepo.all(tx, channel);
    const technologies = await technologiesRepo.all(tx, channel);
    let tcf: VisitorConfig['tcf'] = null;
    if (channel.tcf) {
      const list = await deps.vendorLists.latestVendorList(tx);
      // Settings are only saved once a list exists (tcf-settings.service.ts), and lists are never removed.
      if (!list) throw new Error(`channel ${channel.id} has TCF settings but no vendor list is stored`);
      // Google's ATP list names the channel's Additional Consent providers in the layers.
      const atp = channel.tcf.googleAdditionalConsent ? await deps.vendorLists.atpProviders(tx) : null;
      tcf = snapshotTcf(channel.tcf, list, clock.now(), channel.reopenControl, atp);
    }
    return buildVisitorConfig(channel, purposes, technologies, tcf);
  }

  /**
   * The one place channel.* webhook events are written: inside the change's
   * transaction (`tx`), so the event commits or rolls
   * back with it (transactional outbox, docs/decisions/webhooks.md).
   */
  async function emitChannelEvent(tx: Tx, type: ChannelEventType, channel: ChannelRow): Promise<void> {
    await deps.events.emit(tx, {
      type,
      organizationId: channel.organizationId,
      environment: channel.environment,
      data: presentChannel(channel),
    });
  }

  return {
    emitChannelEvent,

    /**
     * A channel of the caller's organization and environment, for reads; any other is a 404. `db`
     * is the caller's read handle (`DbScope.read`): its transaction when it is in one.
     */
    async find(db: Db, context: AuditContext, id: string): Promise<ChannelRow> {
      const channel = await channelsRepo.find(db, context.organizationId, context.environment, id);
      if (!channel) throw notFound('channel');
      return channel;
    },

    /**
     * Locks an active channel for a change inside `tx`. `share` is for changes that never alter the
     * visitor config (origins): they may run side by side but never beside an archive.
     */
    async lockActive(
      tx: Tx,
      context: Pick<AuditContext, 'organizationId' | 'environment'>,
      id: string,
      strength: 'update' | 'share' = 'update',
    ): Promise<ChannelRow> {
      const channel = await channelsRepo.findForUpdate(
        tx,
        context.organizationId,
        context.environment,
        id,
        strength,
      );
      if (!channel) throw notFound('channel');
      if (channel.status !== 'active') {
        throw new AppError('invalid_state', 'The channel is archived; it can no longer be changed.');
      }
      // Every change goes through here: public-site caches hear of it when it commits.
      await store.notify(tx, CHANNEL_CHANGES);
      return channel;
    },

    /** Stores configVersion 1 of a channel just inserted: the first notice is always asked. */
    async publishFirst(tx: Tx, channel: ChannelRow): Promise<void> {
      await configVersionsRepo.insert(tx, {
        organizationId: channel.organizationId,
        environment: channel.environment,
        channelId: channel.id,
        version: channel.configVersion,
        snapshot: await current(tx, channel),
        reconsent: true,
        consentRequiredSince: channel.configVersion,
        createdAt: clock.now(),
      });
    },

    /**
     * After a change (same transaction, channel locked): if the visitor config now differs from the
     * newest snapshot, bumps configVersion by one and stores the new snapshot, with whether the
     * change is material (`reconsent`, docs/regions.md); otherwise leaves both. Emits channel.updated
     * when the channel resource changed (`changed`) or its version moved.
     */
    async publish(tx: Tx, channel: ChannelRow, options: { changed: boolean }): Promise<ChannelRow> {
      const now = clock.now();
      const config = await current(tx, channel);
      const latest = await configVersionsRepo.find(tx, channel, channel.configVersion);
      const previous = latest ? snapshotConfig(latest.snapshot) : null;
      let result = channel;
      if (!previous || !sameVisitorConfig(previous, config)) {
        const version = channel.configVersion + 1;
        const reconsent = isReconsent(previous, config) || isTcfReconsent(previous?.tcf ?? null, config.tcf);
        result = await channelsRepo.update(tx, channel, { configVersion: version, updatedAt: now });
        await configVersionsRepo.insert(tx, {
          organizationId: channel.organizationId,
          environment: channel.environment,
          channelId: channel.id,
          version,
          snapshot: { ...config, configVersion: version },
          reconsent,
          consentRequiredSince: reconsent || !latest ? version : latest.consentRequiredSince,
          createdAt: now,
        });
      }
      if (options.changed || result !== channel) await emitChannelEvent(tx, 'channel.updated', result);
      return result;
    },
  };
}

export type ChannelChanges = ReturnType<typeof createChannelChanges>;

/** What the purposes, technologies and origins services are built from. */
export interface ChannelPartsDeps {
  store: Pick<Store, 'db' | 'savepoint'>;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  changes: ChannelChanges;
}

/**
 * The `list` of a channel part (purposes, technologies, origins): a page of the part's rows, once
 * the channel is found in the caller's organization and environment (404 otherwise).
 */
export function channelPartList<Row>(
  changes: Pick<ChannelChanges, 'find'>,
  page: (db: Db, channel: ChannelRow, limit: number, after: CursorPosition | null) => Promise<Row[]>,
) {
  return async (
    db: DbScope,
    context: AuditContext,
    channelId: string,
    limit: number,
    after: CursorPosition | null,
  ): Promise<Row[]> => {
    const channel = await changes.find(db.read, context, channelId);
    return page(db.read, channel, limit, after);
  };
}
