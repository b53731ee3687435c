import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The retention purge (test evidence after a day, live after retentionDays), driven by the manual clock.
 * Events are recorded with the clock set into the past and purged at the real present, so a purge here never
 * reaches events that other test files sharing the PostgreSQL database record at the present.
 */
let t: TestApp;
let tenant: Tenant;
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t.close());

async function storedRow(id: string) {
  const result = await rawSql(t.store).execute(sql`select * from evidence_events where id = ${id}`);
  return (result as unknown as { rows: Array<Record<string, unknown>> }).rows[0];
}

const visible = async (id: string, key: string) =>
  (await t.http.get(`/v1/evidence/${id}`, { key })).status === 200;

describe('evidence.retention', () => {
  it('purges test evidence older than 24 h and live evidence past its channel retentionDays', async () => {
    const present = t.clock.now();
    const testSite = await createReadySite(t, tenant.testKey);
    const shortLive = await createReadySite(t, tenant.liveKey, { retentionDays: 1 });
    const longLive = await createReadySite(t, tenant.liveKey, { retentionDays: 3 });

    const at = async (hoursAgo: number, site: typeof testSite) => {
      t.clock.set(new Date(present.getTime() - hoursAgo * HOUR));
      return (await recordConsent(t, site)).id as string;
    };
    const testOld = await at(25, testSite);
    const testRecent = await at(23, testSite);
    const shortOld = await at(25, shortLive);
    const shortRecent = await at(23, shortLive);
    const longOld = await at(70, longLive);
    const longOlder = await at(73, longLive);
    t.clock.set(present);

    await t.worker.runDue();

    expect(await visible(testOld, tenant.testKey)).toBe(false);
    expect(await visible(testRecent, tenant.testKey)).toBe(true);
    expect(await visible(shortOld, tenant.liveKey)).toBe(false);
    expect(await visible(shortRecent, tenant.liveKey)).toBe(true);
    expect(await visible(longOld, tenant.liveKey)).toBe(true);
    expect(await visible(longOlder, tenant.liveKey)).toBe(false);

    const liveList = await t.http.get(`/v1/evidence?channelId=${shortLive.channelId}`, {
      key: tenant.liveKey,
    });
    expect(liveList.body.data.map((e: { id: string }) => e.id)).toEqual([shortRecent]);
    expectProblemShape(
      await t.http.get(`/v1/evidence/${testOld}`, { key: tenant.testKey }),
      404,
      'not_found',
    );

    // The content is gone; the identity and receipt the ledger needs stay.
    const purged = await storedRow(testOld);
    expect(purged).toMatchObject({
      id: testOld,
      organization_id: tenant.organizationId,
      environment: 'test',
      channel_id: testSite.channelId,
      subject_pseudonym: null,
      decisions: null,
      config_version: null,
      policy_version: null,
      source: null,
      language: null,
      gpc: null,
      origin: null,
      user_agent: null,
      ip_prefix: null,
    });
    expect(purged.receipt_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(purged.purged_at).not.toBeNull();
    expect(purged.recorded_at).not.toBeNull();

    // The task is recurring: an hour later it runs again and purges what has aged since.
    t.clock.advance(HOUR + 1000);
    await t.worker.runDue();
    expect(await visible(testRecent, tenant.testKey)).toBe(false);
    expect(await visible(shortRecent, tenant.liveKey)).toBe(false);
    expect(await visible(longOld, tenant.liveKey)).toBe(true);
  });

  it('works in bounded batches: more events than one batch are all purged in one run', async () => {
    const { PURGE_BATCH, purgeExpiredEvidence } = await import('../../src/modules/evidence/retention.ts');
    const site = await createReadySite(t, tenant.testKey);
    // Rows straight into the table (the HTTP path would take minutes here), as old as the purge needs;
    // their receipt hashes are well-formed, since the ledger's insert trigger queues them for sealing.
    const old = new Date(t.clock.now().getTime() - 48 * HOUR).toISOString();
    await rawSql(t.store).execute(sql`
      insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
        config_version, policy_version, source, gpc, recorded_at, receipt_hash)
      select ${tenant.organizationId}, 'evt_batch' || g, 'test', ${site.channelId}, 'psn_' || md5(g::text),
        '{}'::jsonb, 1, '1', 'banner', false, ${old}::timestamptz, encode(sha256(g::text::bytea), 'hex')
      from generate_series(1, ${PURGE_BATCH + 7}) g`);
    const result = await purgeExpiredEvidence({ store: t.store, clock: t.clock });
    expect(result.test).toBeGreaterThanOrEqual(PURGE_BATCH + 7);
    const left = await rawSql(t.store).execute(
      sql`select count(*)::int as n from evidence_events where channel_id = ${site.channelId} and purged_at is null`,
    );
    expect((left as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBe(0);
  });
});
