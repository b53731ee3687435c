import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { DbScope } from '../../platform/db/store.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import { type AppRow, appsRepo } from './apps.repo.ts';
import { type ChannelPartsDeps, channelPartList } from './channel-changes.ts';

export type AppStore = AppRow['store'];

/**
 * The app ids of an app channel (docs/guides/apps.md), as origins are to a web channel: not part of
 * what visitors are shown, so no configVersion; the channel's lock in share mode, duplicates left
 * to the unique index on active app ids.
 */
export function createAppsService({ store, clock, audit, changes }: ChannelPartsDeps) {
  return {
    create(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      input: { appId: string; store: AppStore },
    ): Promise<AppRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId, 'share');
        if (channel.platform !== 'app') {
          throw validationFailed(
            [{ path: '/appId', message: 'the channel is a web channel: it has origins, not app ids' }],
            'App ids belong to app channels only: register origins on a web channel, or create a channel with platform "app".',
          );
        }
        const app: AppRow = {
          organizationId: channel.organizationId,
          id: newId('app'),
          environment: channel.environment,
          channelId: channel.id,
          appId: input.appId,
          store: input.store,
          status: 'active',
          createdAt: clock.now(),
          archivedAt: null,
        };
        try {
          // A savepoint, so the violation leaves the caller's transaction usable.
          await store.savepoint(tx, (sp) => appsRepo.insert(sp, app));
        } catch (error) {
          if (isUniqueViolation(error, 'channel_apps_channel_app_key')) {
            throw new AppError(
              'app_duplicate',
              `${input.appId} is already an active app of the channel: archive it first to register it again.`,
              { instance: `/v1/channels/${channel.id}/apps`, extra: { appId: input.appId }, cause: error },
            );
          }
          throw error;
        }
        await audit.record(tx, context, { action: 'app.created', target: { type: 'app', id: app.id } });
        return app;
      });
    },

    list: channelPartList(changes, appsRepo.list),

    archive(db: DbScope, context: AuditContext, channelId: string, appRecordId: string): Promise<AppRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId, 'share');
        const app = await appsRepo.findForUpdate(tx, channel, appRecordId);
        if (!app) throw notFound('app');
        if (app.status !== 'active') throw new AppError('invalid_state', 'The app is already archived.');
        const archived = await appsRepo.archive(tx, app, clock.now());
        await audit.record(tx, context, { action: 'app.archived', target: { type: 'app', id: app.id } });
        return archived;
      });
    },
  };
}
