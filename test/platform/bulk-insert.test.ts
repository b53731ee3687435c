import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvidenceRow, evidenceEvents } from '../../src/modules/evidence/evidence.tables.ts';
import { createPartitionsFor } from '../../src/modules/evidence/partitions.ts';
import { insertRows } from '../../src/platform/db/bulk-insert.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { newId } from '../../src/platform/ids.ts';
import { openTestStore } from '../helpers/app.ts';

/** insertRows sends every column as one text array: each value must come back exactly as given. */
let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

function event(organizationId: string, overrides: Partial<EvidenceRow> = {}): EvidenceRow {
  return {
    organizationId,
    id: newId('evt'),
    environment: 'live',
    channelId: 'ch_bulk',
    subjectPseudonym: `psn_${'a'.repeat(64)}`,
    decisions: { analytics: 'granted', marketing: 'denied' },
    configVersion: 3,
    policyVersion: '2024-05',
    source: 'banner',
    language: 'de',
    gpc: true,
    origin: 'https://shop.example.com',
    userAgent: 'Mozilla/5.0',
    ipPrefix: '203.0.113.0/24',
    region: 'DE-BE',
    regionSource: 'geoip',
    regime: 'opt-in',
    gppString: 'DBABLA~BVQqAAAAAgA.QA',
    tcString: null,
    tcf: null,
    subjectKind: 'account',
    gpcHonoredShown: null,
    outcome: null,
    app: null,
    handoff: null,
    importedFrom: null,
    recordedAt: new Date('2026-11-21T10:00:00Z'),
    receiptHash: 'f'.repeat(64),
    receiptTokenHash: null,
    purgedAt: null,
    ...overrides,
  };
}

describe('insertRows', () => {
  it('stores every value as given: quotes, backslashes, braces, commas, unicode, NULLs, false, JSON', async () => {
    const organizationId = newId('org');
    const awkward = 'say "hi", {a,b} \\ back\\slash NULL \'quote\' é 😀 \n newline';
    const rows = [
      event(organizationId, { userAgent: awkward, policyVersion: 'NULL', gpc: false }),
      event(organizationId, {
        decisions: { 'we"ird\\key': 'granted' } as never,
        language: null,
        origin: null,
        userAgent: null,
        configVersion: 2147483647,
        recordedAt: new Date('1999-12-31T23:59:59Z'),
      }),
      event(organizationId, { userAgent: '', policyVersion: '{}', gpcHonoredShown: true }),
      event(organizationId, {
        source: 'import',
        importedFrom: { cmp: 'onetrust', recordedAt: '2026-11-20T09:00:00.000Z', value: awkward },
      }),
      event(organizationId, {
        source: 'handoff',
        handoff: { fromOrigin: 'https://example.de', eventId: newId('evt') },
      }),
      event(organizationId, {
        origin: null,
        app: { appId: 'com.example.shop', platform: 'ios', sdkVersion: '1.2.0' },
      }),
    ];
    // Live months have no DEFAULT partition: the consent writer makes a missing month before it
    // writes again (partitions.ts), and so does this test for its months (1999, 2026-11).
    await createPartitionsFor(store, rows);
    await store.tx((tx) => insertRows(tx, evidenceEvents, rows));
    const stored = await store.db
      .select()
      .from(evidenceEvents)
      .where(eq(evidenceEvents.organizationId, organizationId));
    const byId = new Map(stored.map((row) => [row.id, row]));
    // seq is the service's order of recording, given by the database.
    for (const row of rows) expect(byId.get(row.id)).toEqual({ ...row, seq: expect.any(Number) });
  });

  it('inserts a batch of 128 in one statement, and nothing for none', async () => {
    const organizationId = newId('org');
    await store.tx((tx) => insertRows(tx, evidenceEvents, []));
    const rows = Array.from({ length: 128 }, (_, i) => event(organizationId, { configVersion: i + 1 }));
    await createPartitionsFor(store, rows);
    await store.tx((tx) => insertRows(tx, evidenceEvents, rows));
    const stored = await store.db
      .select()
      .from(evidenceEvents)
      .where(eq(evidenceEvents.organizationId, organizationId));
    expect(stored.map((r) => r.configVersion).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      rows.map((r) => r.configVersion),
    );
  });

  it('refuses rows that disagree on which columns they give', async () => {
    const organizationId = newId('org');
    const partial = { ...event(organizationId) } as Partial<EvidenceRow>;
    delete partial.userAgent;
    await expect(
      store.tx((tx) => insertRows(tx, evidenceEvents, [event(organizationId), partial as EvidenceRow])),
    ).rejects.toThrow(/lacks a value/);
  });
});
