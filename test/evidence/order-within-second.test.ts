import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { insertEvents } from '../ledger/ledger-helpers.ts';

/**
 * Newest first within one second. API times have whole seconds, so the events of one second tie on
 * their time and the id decides: ids made in time order (platform/ids.ts) list them as they were
 * recorded, and keyset pages still split that order exactly. Events stored before such ids keep
 * their random ones: within one of their seconds they list in id order, as before, without a gap or
 * a repeat between pages.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t.close());

/** Every page of a list, `limit` at a time, concatenated. */
async function allPages(path: string, limit: number): Promise<Array<{ id: string; [k: string]: unknown }>> {
  const seen: Array<{ id: string }> = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res = await t.http.get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}${after}`, {
      key: tenant.testKey,
    });
    expect(res.status, res.text).toBe(200);
    seen.push(...res.body.data);
    cursor = res.body.meta.nextCursor;
  } while (cursor);
  return seen;
}

/** A whole second of the manual clock, a minute before the present (apart from the other tests' events). */
function wholeSecond(minutesBack: number): number {
  return Math.floor(Date.now() / 1000) * 1000 - minutesBack * 60_000;
}

describe('newest first within one second', () => {
  it('evidence: the decisions of one second list in the reverse order they were recorded, over exact pages', async () => {
    const second = wholeSecond(1);
    const recorded: string[] = [];
    // Twelve decisions in one second: some milliseconds apart, some in the same millisecond.
    for (let i = 0; i < 12; i++) {
      t.clock.set(new Date(second + Math.floor(i / 2) * 150));
      recorded.push((await recordConsent(t, site)).id);
    }
    const listed = await allPages(`/v1/evidence?channelId=${site.channelId}`, 5);
    expect(new Set(listed.map((e) => e.recordedAt))).toEqual(
      new Set([new Date(second).toISOString().replace('.000', '')]),
    );
    expect(listed.map((e) => e.id)).toEqual([...recorded].reverse());
  });

  it('evidence stored with random ids keeps one exact order within its second, pages included', async () => {
    const second = new Date(wholeSecond(3));
    const channelId = 'ch_randomids0000000000000';
    for (let i = 0; i < 7; i++) {
      await insertEvents(t.store, { organizationId: tenant.organizationId, environment: 'test' }, 1, {
        from: second,
        channelId,
      });
    }
    const whole = await allPages(`/v1/evidence?channelId=${channelId}`, 100);
    expect(whole).toHaveLength(7);
    for (const limit of [1, 2, 3]) {
      const paged = await allPages(`/v1/evidence?channelId=${channelId}`, limit);
      expect(paged.map((e) => e.id)).toEqual(whole.map((e) => e.id));
    }
  });

  it('the audit log: the entries of one millisecond list in the reverse order they were made', async () => {
    t.clock.set(new Date(wholeSecond(5) + 250));
    const created: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.http.post(`/v1/channels/${site.channelId}/purposes`, {
        key: tenant.testKey,
        body: { key: `same_ms_${i}`, name: `Same millisecond ${i}` },
      });
      expect(res.status, res.text).toBe(201);
      created.push(res.body.data.id);
    }
    const entries = await allPages('/v1/audit-logs?action=purpose.created', 3);
    const ours = entries.map((e) => (e.target as { id: string }).id).filter((id) => created.includes(id));
    expect(ours).toEqual([...created].reverse());
  });
});
