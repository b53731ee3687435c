import type { Static } from '@sinclair/typebox';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { DbScope, Tx } from '../../platform/db/store.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import { type ChannelPartsDeps, channelPartList } from './channel-changes.ts';
import type { CreatePurposeBody, UpdatePurposeBody } from './channel-parts.schemas.ts';
import type { ChannelRow, PurposeRow } from './channels.repo.ts';
import type { Translation } from './channels.tables.ts';
import { purposesRepo } from './purposes.repo.ts';

export type CreatePurposeInput = Static<typeof CreatePurposeBody>;
export type UpdatePurposeInput = Static<typeof UpdatePurposeBody>;

/** Stored with every member present, so every reader sees one shape. */
function normalizeTranslations(input: Record<string, { name: string; description?: string | null }>) {
  const out: Record<string, Translation> = {};
  for (const [lang, text] of Object.entries(input))
    out[lang] = { name: text.name, description: text.description ?? null };
  return out;
}

/** A strictly necessary purpose cannot be denied, so a GPC signal cannot deny it either. */
function checkRules(purpose: Pick<PurposeRow, 'required' | 'gpcOptOut'>) {
  if (purpose.required && purpose.gpcOptOut) {
    throw validationFailed([
      { path: '/gpcOptOut', message: 'a required (strictly necessary) purpose cannot be opted out by GPC' },
    ]);
  }
}

export function createPurposesService({ store, clock, audit, changes }: ChannelPartsDeps) {
  // No row lock of its own: every change to a purpose holds its channel's lock first.
  async function purposeOf(tx: Tx, channel: ChannelRow, purposeId: string): Promise<PurposeRow> {
    const purpose = await purposesRepo.find(tx, channel, purposeId);
    if (!purpose) throw notFound('purpose');
    return purpose;
  }

  return {
    create(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      input: CreatePurposeInput,
    ): Promise<PurposeRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId);
        const now = clock.now();
        const purpose: PurposeRow = {
          organizationId: channel.organizationId,
          id: newId('pur'),
          environment: channel.environment,
          channelId: channel.id,
          key: input.key,
          name: input.name,
          description: input.description ?? null,
          legalBasis: input.legalBasis ?? 'consent',
          required: input.required ?? false,
          status: 'active',
          translations: normalizeTranslations(input.translations ?? {}),
          consentModeSignals: input.consentModeSignals ?? [],
          gpcOptOut: input.gpcOptOut ?? false,
          createdAt: now,
          updatedAt: now,
          archivedAt: null,
        };
        checkRules(purpose);
        try {
          // A savepoint, so the violation leaves the caller's transaction usable.
          await store.savepoint(tx, (sp) => purposesRepo.insert(sp, purpose));
        } catch (error) {
          if (isUniqueViolation(error, 'purposes_channel_key_key')) {
            throw new AppError(
              'purpose_duplicate',
              `The channel already has a purpose with key "${input.key}".`,
            );
          }
          throw error;
        }
        await audit.record(tx, context, {
          action: 'purpose.created',
          target: { type: 'purpose', id: purpose.id },
        });
        await changes.publish(tx, channel, { changed: false });
        return purpose;
      });
    },

    async get(db: DbScope, context: AuditContext, channelId: string, purposeId: string): Promise<PurposeRow> {
      const channel = await changes.find(db.read, context, channelId);
      const purpose = await purposesRepo.find(db.read, channel, purposeId);
      if (!purpose) throw notFound('purpose');
      return purpose;
    },

    list: channelPartList(changes, purposesRepo.list),

    update(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      purposeId: string,
      input: UpdatePurposeInput,
    ) {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId);
        const purpose = await purposeOf(tx, channel, purposeId);
        if (purpose.status !== 'active') {
          throw new AppError('invalid_state', 'The purpose is archived; it can no longer be changed.');
        }
        const update = {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.legalBasis !== undefined && { legalBasis: input.legalBasis }),
          ...(input.required !== undefined && { required: input.required }),
          ...(input.translations !== undefined && {
            translations: normalizeTranslations(input.translations),
          }),
          ...(input.consentModeSignals !== undefined && { consentModeSignals: input.consentModeSignals }),
          ...(input.gpcOptOut !== undefined && { gpcOptOut: input.gpcOptOut }),
          updatedAt: clock.now(),
        };
        checkRules({ ...purpose, ...update });
        const updated = await purposesRepo.update(tx, purpose, update);
        await audit.record(tx, context, {
          action: 'purpose.updated',
          target: { type: 'purpose', id: purposeId },
        });
        await changes.publish(tx, channel, { changed: false });
        return updated;
      });
    },

    /** Archiving also detaches the purpose from the channel's technologies (they name active purposes only). */
    archive(db: DbScope, context: AuditContext, channelId: string, purposeId: string): Promise<PurposeRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId);
        const purpose = await purposeOf(tx, channel, purposeId);
        if (purpose.status !== 'active')
          throw new AppError('invalid_state', 'The purpose is already archived.');
        const now = clock.now();
        const archived = await purposesRepo.update(tx, purpose, {
          status: 'archived',
          archivedAt: now,
          updatedAt: now,
        });
        await purposesRepo.detachFromTechnologies(tx, purpose, now);
        await audit.record(tx, context, {
          action: 'purpose.archived',
          target: { type: 'purpose', id: purposeId },
        });
        await changes.publish(tx, channel, { changed: false });
        return archived;
      });
    },
  };
}
