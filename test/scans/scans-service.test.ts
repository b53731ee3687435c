import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditContext } from '../../src/modules/audit/audit.service.ts';
import type { ChannelRow } from '../../src/modules/channels/channels.service.ts';
import { createScansService, MAX_ACTIVE_SCANS } from '../../src/modules/scans/scans.service.ts';
import type { ScanRow } from '../../src/modules/scans/scans.tables.ts';
import type { Environment } from '../../src/platform/auth/scopes.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { AppError } from '../../src/platform/http/errors.ts';
import { newId } from '../../src/platform/ids.ts';
import { openTestStore } from '../helpers/app.ts';

// The organization's cap on queued or running scans, on the real service and a real database; the
// channels it scans, the job queue, the audit log and the webhook outbox are fakes, so every channel
// exists, is active and has one public origin without any HTTP request making it so.

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

function fakeChannel(organizationId: string, environment: Environment, id: string): ChannelRow {
  return { organizationId, environment, id, status: 'active', configVersion: 1 } as ChannelRow;
}

function build() {
  const enqueued: { organizationId: string | null | undefined; dedupeKey: string | null | undefined }[] = [];
  const audited: string[] = [];
  const scans = createScansService({
    store,
    clock: { now: () => new Date() },
    audit: {
      record: async (_tx, _context, entry) => {
        audited.push(entry.action);
      },
    },
    channels: {
      get: async (_db, context, id) => fakeChannel(context.organizationId, context.environment, id),
      activeOrigins: async () => ['https://shop.example'],
      // Only the scan job reads these; creating a scan never does.
      findChannel: async () => {
        throw new Error('not used when creating a scan');
      },
      currentNotice: async () => {
        throw new Error('not used when creating a scan');
      },
      technologies: {} as never,
    },
    jobs: {
      enqueue: async (_tx, job) => {
        enqueued.push({ organizationId: job.organizationId, dedupeKey: job.dedupeKey });
        return { id: newId('job'), enqueued: true };
      },
    },
    events: { emit: async () => {} },
    scanner: {
      chromiumPath: '/nonexistent/chromium',
      allowPrivate: false,
      pageTimeoutMs: 1000,
      scanTimeoutMs: 1000,
      // A public address for every host: no DNS in this test.
      lookup: async () => [{ address: '93.184.216.34', family: 4 }],
    },
  });
  return { scans, enqueued, audited };
}

function contextOf(organizationId: string, environment: Environment = 'test'): AuditContext {
  return {
    organizationId,
    environment,
    actor: { type: 'api_key', id: 'key_test' },
    requestId: null,
    ipPrefix: null,
  };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('scans service: at most MAX_ACTIVE_SCANS queued or running scans per organization', () => {
  it('queues one scan per channel up to the cap, over both environments, then refuses with 429 and enqueues nothing', async () => {
    const { scans, enqueued, audited } = build();
    const organizationId = newId('org');
    const db = store.scope(null);
    const created: ScanRow[] = [];
    for (let i = 0; i < MAX_ACTIVE_SCANS; i++) {
      // The cap counts the organization's scans in both environments together.
      const context = contextOf(organizationId, i % 2 === 0 ? 'test' : 'live');
      created.push(await scans.create(db, context, `ch_${i}`, {}));
    }
    expect(created.map((scan) => scan.status)).toEqual(Array(MAX_ACTIVE_SCANS).fill('queued'));
    expect(created[0].urls).toEqual(['https://shop.example/']);
    expect(enqueued).toHaveLength(MAX_ACTIVE_SCANS);
    expect(audited).toEqual(Array(MAX_ACTIVE_SCANS).fill('scan.created'));

    const refused = await refusal(scans.create(db, contextOf(organizationId), 'ch_over', {}));
    expect(refused.code).toBe('rate_limited');
    expect(refused.options?.headers).toEqual({ 'Retry-After': '60' });
    expect(enqueued).toHaveLength(MAX_ACTIVE_SCANS);
    expect(audited).toHaveLength(MAX_ACTIVE_SCANS);
    const stored = await scans.list(db, contextOf(organizationId), 'ch_over', 10, null);
    expect(stored).toEqual([]);
  });

  it('is per organization: another organization queues while the first is at its cap', async () => {
    const { scans } = build();
    const db = store.scope(null);
    const full = newId('org');
    for (let i = 0; i < MAX_ACTIVE_SCANS; i++) await scans.create(db, contextOf(full), `ch_${i}`, {});
    const other = await scans.create(db, contextOf(newId('org')), 'ch_0', {});
    expect(other.status).toBe('queued');
  });

  it('frees a place when a scan ends', async () => {
    const { scans } = build();
    const db = store.scope(null);
    const organizationId = newId('org');
    const created: ScanRow[] = [];
    for (let i = 0; i < MAX_ACTIVE_SCANS; i++)
      created.push(await scans.create(db, contextOf(organizationId), `ch_${i}`, {}));
    await refusal(scans.create(db, contextOf(organizationId), 'ch_next', {}));
    await store.tx((tx) =>
      tx.execute(
        sql`update scans set status = 'succeeded' where organization_id = ${organizationId} and id = ${created[0].id}`,
      ),
    );
    const next = await scans.create(db, contextOf(organizationId), 'ch_next', {});
    expect(next.status).toBe('queued');
  });

  it('refuses a second scan of the same channel with 409 invalid_state, before the cap', async () => {
    const { scans, enqueued } = build();
    const db = store.scope(null);
    const organizationId = newId('org');
    const first = await scans.create(db, contextOf(organizationId), 'ch_0', {});
    const refused = await refusal(scans.create(db, contextOf(organizationId), 'ch_0', {}));
    expect(refused.code).toBe('invalid_state');
    expect(refused.message).toContain(first.id);
    expect(enqueued).toHaveLength(1);
  });
});
