import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditContext, createAuditService } from '../../src/modules/audit/audit.service.ts';
import { channelsRepo } from '../../src/modules/channels/channels.repo.ts';
import { createChannelsService } from '../../src/modules/channels/channels.service.ts';
import type { WebhookEvent } from '../../src/modules/webhooks/events.service.ts';
import type { Store, Tx } from '../../src/platform/db/store.ts';
import { apiDate } from '../../src/platform/http/dates.ts';
import { AppError } from '../../src/platform/http/errors.ts';
import { newId } from '../../src/platform/ids.ts';
import { openTestStore } from '../helpers/app.ts';

// Channel changes and their webhook events, on the real service and a real database, with a fake
// outbox: each change hands its event to `events.emit` inside the change's own transaction, so
// the event commits or rolls back with the change, and a change that is refused emits nothing.

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

interface Emitted {
  event: WebhookEvent;
  /** Whether the channel, as the event describes it, was visible through the tx emit was given. */
  visibleInTx: boolean;
}

function build(options: { failEmit?: boolean } = {}) {
  const emitted: Emitted[] = [];
  const clock = { now: () => new Date() };
  const channels = createChannelsService({
    store,
    clock,
    audit: createAuditService({ clock }),
    events: {
      async emit(tx: Tx, event: WebhookEvent) {
        const id = event.data.id as string;
        const row = await channelsRepo.find(tx, event.organizationId, event.environment, id);
        emitted.push({ event, visibleInTx: row?.status === event.data.status });
        if (options.failEmit) throw new Error('outbox unavailable');
      },
    },
    // No vendor list: these channels have no TCF settings.
    tcf: {
      latestVendorList: async () => null,
      requestFetch: async () => {},
      atpProviders: async () => null,
      requestAtpFetch: async () => {},
    },
  });
  return { channels, emitted };
}

function contextOf(organizationId = newId('org')): AuditContext {
  return {
    organizationId,
    environment: 'test',
    actor: { type: 'api_key', id: 'key_test' },
    requestId: null,
    ipPrefix: null,
  };
}

describe('channels service: every change emits its webhook event in its own transaction', () => {
  it('emits channel.created, channel.updated and channel.archived with the channel as the API shows it', async () => {
    const { channels, emitted } = build();
    const context = contextOf();
    const db = store.scope(null);
    const created = await channels.create(db, context, { name: 'Shop' });
    const renamed = await channels.update(db, context, created.id, { name: 'Shop EU' });
    const archived = await channels.archive(db, context, created.id);

    expect(emitted.map((e) => e.event.type)).toEqual([
      'channel.created',
      'channel.updated',
      'channel.archived',
    ]);
    expect(emitted.every((e) => e.visibleInTx)).toBe(true);
    for (const { event } of emitted) {
      expect(event.organizationId).toBe(context.organizationId);
      expect(event.environment).toBe('test');
      expect(event.data.id).toBe(created.id);
    }
    expect(emitted[1].event.data.name).toBe('Shop EU');
    // A rename does not change what visitors are shown: still configVersion 1.
    expect(renamed.configVersion).toBe(1);
    expect(emitted[2].event.data.status).toBe('archived');
    expect(emitted[2].event.data.archivedAt).toBe(apiDate(archived.archivedAt));
  });

  it('rolls the change back when its event cannot be written', async () => {
    const { channels, emitted } = build({ failEmit: true });
    const context = contextOf();
    const db = store.scope(null);
    await expect(channels.create(db, context, { name: 'Lost' })).rejects.toThrow('outbox unavailable');
    expect(emitted).toHaveLength(1);
    const id = emitted[0].event.data.id as string;
    expect(await channelsRepo.find(store.db, context.organizationId, 'test', id)).toBeUndefined();
    expect(await channels.list(db, context, 10, null)).toEqual([]);
  });

  it('emits nothing for a refused change: an archived channel cannot be updated or archived again', async () => {
    const { channels, emitted } = build();
    const context = contextOf();
    const db = store.scope(null);
    const created = await channels.create(db, context, { name: 'Old' });
    await channels.archive(db, context, created.id);
    const before = emitted.length;
    for (const change of [
      () => channels.update(db, context, created.id, { name: 'New' }),
      () => channels.archive(db, context, created.id),
    ]) {
      const error = await change().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('invalid_state');
    }
    expect(emitted).toHaveLength(before);
  });

  it("emits nothing for another organization's channel (404)", async () => {
    const { channels, emitted } = build();
    const db = store.scope(null);
    const created = await channels.create(db, contextOf(), { name: 'Mine' });
    emitted.length = 0;
    const error = await channels.update(db, contextOf(), created.id, { name: 'Theirs' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as AppError).code).toBe('not_found');
    expect(emitted).toEqual([]);
  });
});
