import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * Evidence pages on the partitioned table: live months are read newest first, and a page
 * stops in the month that fills it. With a DEFAULT partition on the live side PostgreSQL merged every
 * month's index (Merge Append) for every page; its removal must not lose a write whose month has no
 * partition yet.
 */
let t: TestApp;
let tenant: Tenant;
const DAY = 24 * 3600_000;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t.close());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The executed plan of a newest-first page of the tenant's live events (the repository's shape). */
async function pagePlan(filter: ReturnType<typeof sql>): Promise<PlanNode[]> {
  const result = await rawSql(t.store).execute(sql`
    explain (analyze, format json)
    select * from evidence_events
    where organization_id = ${tenant.organizationId} and environment = 'live' and purged_at is null ${filter}
    order by recorded_at desc, id desc limit 2`);
  const rows = (result as unknown as { rows: Array<Record<string, unknown>> }).rows;
  const raw = Object.values(rows[0])[0];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  return nodes(doc[0].Plan);
}

const month = (at: Date) =>
  `evidence_events_live_p${at.getUTCFullYear()}${String(at.getUTCMonth() + 1).padStart(2, '0')}`;

describe('evidence pages over live partitions', () => {
  it('a live write in a month without a partition makes it and is kept', async () => {
    const present = t.clock.now();
    const site = await createReadySite(t, tenant.liveKey, { retentionDays: 3650 });
    // Five years ahead: no job made that month (it makes three ahead).
    const ahead = new Date(Date.UTC(present.getUTCFullYear() + 5, 5, 15));
    t.clock.set(ahead);
    try {
      const data = await recordConsent(t, site, { subjectId: 'far-ahead-subject' });
      const shown = await t.http.get(`/v1/evidence/${data.id}`, { key: tenant.liveKey });
      expect(shown.status).toBe(200);
      const [row] = (
        (await rawSql(t.store).execute(
          sql`select tableoid::regclass::text as part from evidence_events where id = ${data.id}`,
        )) as unknown as { rows: Array<{ part: string }> }
      ).rows;
      expect(row.part).toBe(month(ahead));
    } finally {
      t.clock.set(present);
    }
  });

  it('reads the newest month first and never opens an older one a page does not reach', async () => {
    const present = t.clock.now();
    const site = await createReadySite(t, tenant.liveKey, { retentionDays: 3650 });
    const older = new Date(present.getTime() - 62 * DAY);
    t.clock.set(older);
    await recordConsent(t, site, { subjectId: 'older-subject' });
    t.clock.set(present);
    for (let i = 0; i < 3; i++) await recordConsent(t, site, { subjectId: `recent-subject-${i}` });

    // Unfiltered, and with a filter every event passes (a filtered page walks the same months).
    for (const filter of [sql``, sql`and channel_id = ${site.channelId}`]) {
      const plan = await pagePlan(filter);
      expect(plan.map((n) => n['Node Type'])).not.toContain('Merge Append');
      const scansOfOlder = plan.filter((n) => n['Relation Name'] === month(older));
      expect(scansOfOlder.length).toBeGreaterThan(0);
      // Listed in the plan (it may hold older rows of the page) but never executed: the newest month filled it.
      for (const scan of scansOfOlder) expect(scan['Actual Loops']).toBe(0);
    }
  });

  // PostgreSQL only: the embedded store runs every statement unnamed, so it is always planned with
  // its values and the setting has nothing to change there.
  it.skipIf(skipWith(postgresOnly()))(
    "the pool's connections run named statements (the unfiltered page) with one generic plan",
    async () => {
      // Several at once, so more than one pooled connection answers.
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => rawSql(t.store).execute(sql`show plan_cache_mode`)),
      );
      for (const answer of answers) {
        const rows = (answer as unknown as { rows: Array<{ plan_cache_mode: string }> }).rows;
        expect(rows[0].plan_cache_mode).toBe('force_generic_plan');
      }
    },
  );
});
