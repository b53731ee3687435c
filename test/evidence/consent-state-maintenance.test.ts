import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsentStateReader } from '../../src/modules/evidence/consent-state.ts';
import { evidenceEventBody } from '../../src/modules/evidence/evidence.presenters.ts';
import { evidenceRepo } from '../../src/modules/evidence/evidence.repo.ts';
import type { EvidenceRow } from '../../src/modules/evidence/evidence.tables.ts';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { pseudonymOf } from '../../src/modules/evidence/pseudonym.ts';
import { newId } from '../../src/platform/ids.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  newSubjectId,
  type ReadySite,
  recordConsent,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * The consent state kept right by the retention purge and built for events older than its table.
 * Events are recorded with the clock in the past and purged at the real
 * present, so purges here never reach the events other test files record on a shared PostgreSQL.
 */
let t: TestApp;
let tenant: Tenant;
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const stateOf = (site: ReadySite, subjectId: string) =>
  t.http.get(`/v1/consent-state?${new URLSearchParams({ channelId: site.channelId, subjectId })}`, {
    key: tenant.testKey,
  });
const rows = async (query: ReturnType<typeof sql>) =>
  ((await rawSql(t.store).execute(query)) as unknown as { rows: Array<Record<string, unknown>> }).rows;

async function archive(site: ReadySite, key: string): Promise<number> {
  const purposes = await t.http.get(`/v1/channels/${site.channelId}/purposes`, { key: tenant.testKey });
  const purpose = purposes.body.data.find((p: { key: string }) => p.key === key);
  const res = await t.http.post(`/v1/channels/${site.channelId}/purposes/${purpose.id}/archive`, {
    key: tenant.testKey,
  });
  expect(res.status, res.text).toBe(200);
  const channel = await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey });
  return channel.body.data.configVersion;
}

describe('consent state and the retention purge', () => {
  it('a purged event stops counting: its purposes fall back to the newest decision left, or go; then the subject goes', async () => {
    const present = t.clock.now();
    const site = await createReadySite(t, tenant.testKey);
    const subjectId = newSubjectId();
    // 30 h ago: analytics and marketing; then marketing is archived; 20 h ago: analytics only.
    t.clock.set(new Date(present.getTime() - 30 * HOUR));
    const old = await recordConsent(t, site, {
      subjectId,
      decisions: { analytics: 'denied', marketing: 'granted' },
    });
    const version = await archive(site, 'marketing');
    t.clock.set(new Date(present.getTime() - 20 * HOUR));
    const recent = await recordConsent(t, site, {
      subjectId,
      configVersion: version,
      decisions: { analytics: 'granted' },
    });
    const before = (await stateOf(site, subjectId)).body.data;
    expect(before.purposes.marketing).toMatchObject({ decision: 'granted', eventId: old.id });
    expect(before.purposes.analytics).toMatchObject({ decision: 'granted', eventId: recent.id });

    // At the present the first event is past the test environment's 24 hours.
    t.clock.set(present);
    await t.app.services.evidence.purgeExpired();
    const after = (await stateOf(site, subjectId)).body.data;
    expect(Object.keys(after.purposes).sort()).toEqual(['analytics', 'necessary']);
    expect(after.purposes.analytics).toMatchObject({ decision: 'granted', eventId: recent.id });
    expect(after.lastRecordedAt).toBe(recent.recordedAt);

    // A day later the second goes too, and with it the subject.
    t.clock.set(new Date(present.getTime() + 5 * HOUR));
    await t.app.services.evidence.purgeExpired();
    t.clock.set(present);
    expect((await stateOf(site, subjectId)).status).toBe(404);
    const left = await rows(
      sql`select count(*)::int as n from consent_state where channel_id = ${site.channelId}`,
    );
    expect(left[0].n).toBe(0);
  }, 90_000); // each purge also makes and drops evidence partitions (slow DDL on the embedded store)
});

describe('consent state backfill (events recorded before the state table)', () => {
  /** An event stored as migration 0019 finds it: in evidence_events, with no state row. */
  async function olderEvent(
    site: ReadySite,
    subjectId: string,
    decisions: EvidenceRow['decisions'],
    at: Date,
  ) {
    const secret = (await t.app.services.organizations.getOrganization(tenant.organizationId))!
      .pseudonymSecret;
    const row: EvidenceRow = {
      organizationId: tenant.organizationId,
      id: newId('evt'),
      environment: 'test',
      channelId: site.channelId,
      subjectPseudonym: pseudonymOf(secret, subjectId),
      decisions,
      configVersion: site.configVersion,
      policyVersion: '2024-05',
      source: 'banner',
      language: 'en',
      gpc: false,
      origin: 'https://shop.example.com',
      userAgent: null,
      ipPrefix: null,
      region: null,
      regionSource: null,
      regime: null,
      gppString: null,
      tcString: null,
      tcf: null,
      recordedAt: new Date(Math.floor(at.getTime() / 1000) * 1000),
      receiptHash: '',
      receiptTokenHash: null,
      purgedAt: null,
    };
    row.receiptHash = evidenceLeafHash(evidenceEventBody(row, 'unmasked'));
    await t.store.tx((tx) => evidenceRepo.insertMany(tx, [row]));
    return row;
  }

  it('answers from the evidence while the backfill runs, then from the table it built, in resumable batches', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const [a, b] = [newSubjectId(), newSubjectId()];
    const now = t.clock.now();
    const a1 = await olderEvent(
      site,
      a,
      { analytics: 'granted', marketing: 'granted' },
      new Date(now.getTime() - 3000),
    );
    const a2 = await olderEvent(
      site,
      a,
      { analytics: 'denied', marketing: 'granted' },
      new Date(now.getTime() - 2000),
    );
    const b1 = await olderEvent(
      site,
      b,
      { analytics: 'granted', marketing: 'denied' },
      new Date(now.getTime() - 1000),
    );
    // A write after the migration, for a, that the backfill must not undo (it is newer).
    const a3 = await recordConsent(t, site, {
      subjectId: a,
      decisions: { analytics: 'granted', marketing: 'denied' },
    });
    await rawSql(t.store).execute(
      sql`update consent_state_backfill set done_at = null, after_organization_id = null, after_id = null, events = 0`,
    );
    // A reader as a process starting now has one (the app's remembers the backfill was done).
    const reader = createConsentStateReader({
      store: t.store,
      clock: t.clock,
      pseudonymize: t.app.services.evidence.pseudonymize,
      findChannel: t.app.services.channels.findChannel,
    });
    const scope = { organizationId: tenant.organizationId, environment: 'test' as const };

    // Not done: answered by a replay of the evidence, already right for b, who has no state row.
    const fresh = await reader.states(scope, site.channelId, [a, b]);
    expect(fresh[1]?.purposes.analytics).toMatchObject({ decision: 'granted', eventId: b1.id });
    expect(await rows(sql`select 1 from consent_state where event_id = ${b1.id}`)).toHaveLength(0);

    // Batches of 2: resumable, each its own transaction; every event of the database is walked.
    const step = await reader.backfill({ batch: 2, budgetMs: 0 });
    expect(step).toEqual({ events: 2, done: false });
    const progress = await rows(sql`select after_id, done_at from consent_state_backfill`);
    expect(progress[0].after_id).not.toBeNull();
    expect(progress[0].done_at).toBeNull();
    const rest = await reader.backfill({ batch: 500 });
    expect(rest.done).toBe(true);

    const state = await rows(sql`select subject_pseudonym, purpose_key, decision, event_id from consent_state
      where channel_id = ${site.channelId} order by subject_pseudonym, purpose_key`);
    const byEvent = (id: string) =>
      state.filter((r) => r.event_id === id).map((r) => `${r.purpose_key}=${r.decision}`);
    expect(byEvent(a3.id).sort()).toEqual(['analytics=granted', 'marketing=denied', 'necessary=granted']);
    expect(byEvent(a1.id)).toEqual([]);
    expect(byEvent(a2.id)).toEqual([]);
    expect(byEvent(b1.id).sort()).toEqual(['analytics=granted', 'marketing=denied']);
    const res = await stateOf(site, b);
    expect(res.body.data.purposes.analytics).toMatchObject({ decision: 'granted', eventId: b1.id });
    expect((await reader.states(scope, site.channelId, [a, b]))[0]?.purposes.analytics).toMatchObject({
      eventId: a3.id,
    });
  });
});
