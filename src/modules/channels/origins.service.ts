import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { DbScope } from '../../platform/db/store.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import { type ChannelPartsDeps, channelPartList } from './channel-changes.ts';
import type { OriginRow } from './channels.repo.ts';
import { cookieDomainErrors } from './first-party-settings.ts';
import { normalizeOrigin } from './origin.ts';
import { originsRepo } from './origins.repo.ts';

/**
 * Origins are not part of what visitors are shown, so they never publish a configVersion; they
 * take the channel's lock in share mode (excluding an archive, not each other) and leave
 * duplicates to the unique index on active origins.
 */
export function createOriginsService({ store, clock, audit, changes }: ChannelPartsDeps) {
  return {
    create(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      input: { origin: string },
    ): Promise<OriginRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId, 'share');
        if (channel.platform === 'app') {
          throw validationFailed(
            [{ path: '/origin', message: 'the channel is an app channel: it has app ids, not origins' }],
            'Origins belong to web channels only: register the app ids on this channel (POST /v1/channels/:id/apps), and the WebView pages’ origins on a web channel.',
          );
        }
        const normalized = normalizeOrigin(input.origin, { environment: channel.environment });
        if (!normalized.ok) {
          throw new AppError('invalid_origin', `The origin is not valid: ${normalized.reason}.`, {
            errors: [{ path: '/origin', message: normalized.reason }],
          });
        }
        // The decision cookie's Domain must keep covering every origin (docs/guides/keep-the-choice.md).
        const uncovered = cookieDomainErrors(channel.cookieDomain, [normalized.origin], '/origin');
        if (uncovered.length > 0) throw validationFailed(uncovered);
        const origin: OriginRow = {
          organizationId: channel.organizationId,
          id: newId('ori'),
          environment: channel.environment,
          channelId: channel.id,
          origin: normalized.origin,
          status: 'active',
          createdAt: clock.now(),
          archivedAt: null,
        };
        try {
          // A savepoint, so the violation leaves the caller's transaction usable.
          await store.savepoint(tx, (sp) => originsRepo.insert(sp, origin));
        } catch (error) {
          if (isUniqueViolation(error, 'origins_channel_origin_key')) {
            throw new AppError(
              'origin_duplicate',
              `${normalized.origin} is already an active origin of the channel.`,
              {
                instance: `/v1/channels/${channel.id}/origins`,
                extra: { origin: normalized.origin },
                cause: error,
              },
            );
          }
          throw error;
        }
        await audit.record(tx, context, {
          action: 'origin.created',
          target: { type: 'origin', id: origin.id },
        });
        return origin;
      });
    },

    list: channelPartList(changes, originsRepo.list),

    archive(db: DbScope, context: AuditContext, channelId: string, originId: string): Promise<OriginRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId, 'share');
        const origin = await originsRepo.findForUpdate(tx, channel, originId);
        if (!origin) throw notFound('origin');
        if (origin.status !== 'active')
          throw new AppError('invalid_state', 'The origin is already archived.');
        const archived = await originsRepo.archive(tx, origin, clock.now());
        await audit.record(tx, context, {
          action: 'origin.archived',
          target: { type: 'origin', id: originId },
        });
        return archived;
      });
    },
  };
}
