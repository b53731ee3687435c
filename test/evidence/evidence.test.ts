import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { pseudonymOf } from '../../src/modules/evidence/pseudonym.ts';
import { walkPages } from '../channels/channel-helpers.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  recordConsent,
  SITES_TEST_ENV,
  WILDCARD_MATCH,
} from '../helpers/sites.ts';
import { LOCAL_WEBHOOKS_ENV, subscribeWebhook } from '../helpers/webhooks.ts';

let t: TestApp;
let tenant: Tenant;
let siteA: ReadySite;
let siteB: ReadySite;
const visitor = newSubjectId();
/** Events by label, recorded 10 s apart: a1 (oldest) … b2 (newest). */
const ids: Record<string, string> = {};
const times: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, ...LOCAL_WEBHOOKS_ENV } });
  tenant = await t.tenant();
  siteA = await createReadySite(t, tenant.testKey, { name: 'A' });
  siteB = await createReadySite(t, tenant.testKey, { name: 'B' });
  const record = async (
    label: string,
    site: ReadySite,
    overrides: Record<string, unknown>,
    origin?: string,
  ) => {
    t.clock.advance(10_000);
    const data = await recordConsent(t, site, overrides, origin ? { origin } : {});
    ids[label] = data.id;
    times[label] = data.recordedAt;
  };
  await record('a1', siteA, { subjectId: visitor, decisions: { analytics: 'granted' } });
  await record('a2', siteA, { decisions: { analytics: 'denied' }, source: 'preference_center' });
  await record('a3', siteA, { subjectId: visitor, decisions: { analytics: 'denied', marketing: 'granted' } });
  await record('b1', siteB, { decisions: { analytics: 'granted' }, source: 'api' }, WILDCARD_MATCH);
  await record('b2', siteB, { subjectId: visitor, decisions: {}, gpc: true, source: 'gpc' });
});
afterAll(() => t.close());

const list = async (query: string, key = tenant.testKey) => {
  const res = await t.http.get(`/v1/evidence${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((e: { id: string }) => e.id) as string[];
};
const labels = (...names: string[]) => names.map((n) => ids[n]);

async function pseudonymSecret(): Promise<Buffer> {
  const result = await rawSql(t.store).execute(
    sql`select pseudonym_secret from organizations where id = ${tenant.organizationId}`,
  );
  const value = (result as unknown as { rows: Array<{ pseudonym_secret: Uint8Array }> }).rows[0]
    .pseudonym_secret;
  return Buffer.from(value);
}

describe('GET /v1/evidence/:id', () => {
  it('shows the event with a masked pseudonym; the receipt is its leaf hash', async () => {
    const res = await t.http.get(`/v1/evidence/${ids.a3}`, { key: tenant.testKey });
    expect(res.status).toBe(200);
    const event = res.body.data;
    expect(Object.keys(event)).toEqual([
      'id',
      'type',
      'channelId',
      'environment',
      'subject',
      'decisions',
      'configVersion',
      'policyVersion',
      'source',
      'language',
      'gpc',
      'origin',
      'userAgent',
      'ipPrefix',
      'recordedAt',
      'receipt',
      // Region members, on events recorded since regions exist.
      'region',
      'regionSource',
      'regime',
      // Whose decision, on events recorded since accounts exist (a device's here).
      'subjectKind',
    ]);
    expect(event.subjectKind).toBe('device');
    const pseudonym = pseudonymOf(await pseudonymSecret(), visitor);
    expect(event.subject).toEqual({ pseudonym: `psn_****${pseudonym.slice(-4)}` });
    expect(res.text).not.toContain(visitor);
    expect(res.text).not.toContain(pseudonym);
    // Anyone holding the full pseudonym recomputes the receipt from the read (the leaf hash of the unmasked
    // event).
    expect(evidenceLeafHash({ ...event, subject: { pseudonym } })).toBe(event.receipt.hash);
    // The stored row holds the pseudonym, never the raw id.
    const stored = await rawSql(t.store).execute(sql`select * from evidence_events where id = ${ids.a3}`);
    expect(JSON.stringify((stored as unknown as { rows: unknown[] }).rows)).not.toContain(visitor);
  });

  it('another organization or environment is a 404; without evidence:read a 403', async () => {
    const other = await t.tenant();
    expectProblemShape(await t.http.get(`/v1/evidence/${ids.a1}`, { key: other.testKey }), 404, 'not_found');
    expectProblemShape(await t.http.get(`/v1/evidence/${ids.a1}`, { key: tenant.liveKey }), 404, 'not_found');
    expect(await list('', other.testKey)).toEqual([]);
    expect(await list('', tenant.liveKey)).toEqual([]);
    const noScope = await tenant.key(['channels:read']);
    expectProblemShape(await t.http.get('/v1/evidence', { key: noScope.secret }), 403, 'insufficient_scope');
    expectProblemShape(
      await t.http.get(`/v1/evidence/${ids.a1}`, { key: noScope.secret }),
      403,
      'insufficient_scope',
    );
    const analyst = await tenant.key(['evidence:read'], { role: 'analyst' });
    expect((await t.http.get(`/v1/evidence/${ids.a1}`, { key: analyst.secret })).status).toBe(200);
  });
});

describe('GET /v1/evidence filters', () => {
  it('newest first, unfiltered', async () => {
    expect(await list('')).toEqual(labels('b2', 'b1', 'a3', 'a2', 'a1'));
  });

  it('channelId, source, from, to', async () => {
    expect(await list(`?channelId=${siteB.channelId}`)).toEqual(labels('b2', 'b1'));
    expect(await list('?source=preference_center')).toEqual(labels('a2'));
    expect(await list('?source=gpc')).toEqual(labels('b2'));
    expect(await list(`?from=${times.a3}`)).toEqual(labels('b2', 'b1', 'a3'));
    expect(await list(`?to=${times.a2}`)).toEqual(labels('a2', 'a1'));
    expect(await list(`?from=${times.a2}&to=${times.b1}`)).toEqual(labels('b1', 'a3', 'a2'));
  });

  it('a channelId that names no channel of the key’s environment is a 404, not an empty list', async () => {
    const live = await createReadySite(t, tenant.liveKey, { name: 'Live' });
    const other = await t.tenant();
    const theirs = await createReadySite(t, other.testKey, { name: 'Theirs' });
    for (const [channelId, key] of [
      ['ch_0000000000000000000000', tenant.testKey],
      [live.channelId, tenant.testKey],
      [siteA.channelId, tenant.liveKey],
      [theirs.channelId, tenant.testKey],
    ]) {
      const res = await t.http.get(`/v1/evidence?channelId=${channelId}`, { key });
      const problem = expectProblemShape(res, 404, 'not_found');
      expect(problem.detail).toContain('channelId');
    }
    // A channel of this environment with no evidence yet is an empty list.
    expect(await list(`?channelId=${live.channelId}`, tenant.liveKey)).toEqual([]);
  });

  it('purpose alone, and purpose with decision', async () => {
    expect(await list('?purpose=analytics&decision=granted')).toEqual(labels('b1', 'a1'));
    expect(await list('?purpose=analytics&decision=denied')).toEqual(labels('b2', 'a3', 'a2'));
    expect(await list('?purpose=marketing&decision=granted')).toEqual(labels('a3'));
    expect(await list('?purpose=necessary&decision=denied')).toEqual([]);
    expect(await list('?purpose=analytics')).toHaveLength(5);
    expect(await list('?purpose=nothing_like_it')).toEqual([]);
  });

  it('subjectId finds one visitor across channels (pseudonymized server-side)', async () => {
    expect(await list(`?subjectId=${encodeURIComponent(visitor)}`)).toEqual(labels('b2', 'a3', 'a1'));
    expect(await list(`?subjectId=${encodeURIComponent(visitor)}&channelId=${siteA.channelId}`)).toEqual(
      labels('a3', 'a1'),
    );
    expect(await list('?subjectId=someone-else-entirely')).toEqual([]);
    // Another organization's pseudonyms differ: the same visitor id finds nothing there.
    const other = await t.tenant();
    expect(await list(`?subjectId=${encodeURIComponent(visitor)}`, other.testKey)).toEqual([]);
  });

  it('sameSubjectAs finds the subject of an event: the console knows only the masked pseudonym', async () => {
    expect(await list(`?sameSubjectAs=${ids.a3}`)).toEqual(labels('b2', 'a3', 'a1'));
    expect(await list(`?sameSubjectAs=${ids.a1}&channelId=${siteB.channelId}`)).toEqual(labels('b2'));
    // Another subject's event finds only its own subject's decisions.
    expect(await list(`?sameSubjectAs=${ids.a2}`)).toEqual(labels('a2'));
    // An event of another environment or organization, or none, is a 404 naming the filter.
    const other = await t.tenant();
    for (const [eventId, key] of [
      ['evt_0000000000000000000000', tenant.testKey],
      [ids.a3, tenant.liveKey],
      [ids.a3, other.testKey],
    ]) {
      const res = await t.http.get(`/v1/evidence?sameSubjectAs=${eventId}`, { key });
      expect(expectProblemShape(res, 404, 'not_found').detail).toContain('sameSubjectAs');
    }
    // One subject, named two ways, is refused: the two could disagree.
    const both = await t.http.get(`/v1/evidence?sameSubjectAs=${ids.a3}&subjectId=${visitor}`, {
      key: tenant.testKey,
    });
    expect(expectProblemShape(both, 422, 'validation_failed').errors[0].path).toBe('query:/sameSubjectAs');
  });

  it('422 for a decision without purpose, bad dates, bad enums, unknown parameters', async () => {
    for (const [query, path] of [
      ['?decision=granted', 'query:/decision'],
      ['?purpose=analytics&decision=maybe', 'query:/decision'],
      ['?from=yesterday', 'query:/from'],
      ['?to=2026-13-01T00:00:00Z', 'query:/to'],
      ['?source=email', 'query:/source'],
      ['?purpose=Not-A-Key', 'query:/purpose'],
      ['?limit=0', 'query:/limit'],
      ['?limit=101', 'query:/limit'],
      ['?subjectId=', 'query:/subjectId'],
      ['?color=blue', 'query:/color'],
    ]) {
      const problem = expectProblemShape(
        await t.http.get(`/v1/evidence${query}`, { key: tenant.testKey }),
        422,
        'validation_failed',
      );
      expect(
        problem.errors.map((e: { path: string }) => e.path),
        query,
      ).toContain(path);
    }
  });
});

describe('GET /v1/evidence paging', () => {
  it('walks every event by cursor, pages of 2, in order', async () => {
    const { items, pages } = await walkPages(t, tenant.testKey, '/v1/evidence', 2);
    expect(items.map((e: { id: string }) => e.id)).toEqual(labels('b2', 'b1', 'a3', 'a2', 'a1'));
    expect(pages).toBe(3);
    const filtered = await walkPages(
      t,
      tenant.testKey,
      `/v1/evidence?subjectId=${encodeURIComponent(visitor)}`,
      1,
    );
    expect(filtered.items.map((e: { id: string }) => e.id)).toEqual(labels('b2', 'a3', 'a1'));
  });

  it('a cursor of another filter set or list, or a forged one, is 400 invalid_cursor', async () => {
    const first = await t.http.get('/v1/evidence?limit=1', { key: tenant.testKey });
    const cursor = encodeURIComponent(first.body.meta.nextCursor);
    expectProblemShape(
      await t.http.get(`/v1/evidence?limit=1&source=api&cursor=${cursor}`, { key: tenant.testKey }),
      400,
      'invalid_cursor',
    );
    expectProblemShape(
      await t.http.get(`/v1/evidence?limit=1&subjectId=${visitor}&cursor=${cursor}`, { key: tenant.testKey }),
      400,
      'invalid_cursor',
    );
    expectProblemShape(
      await t.http.get('/v1/evidence?cursor=abc.def', { key: tenant.testKey }),
      400,
      'invalid_cursor',
    );
    const channels = await t.http.get('/v1/channels?limit=1', { key: tenant.testKey });
    expectProblemShape(
      await t.http.get(`/v1/evidence?cursor=${encodeURIComponent(channels.body.meta.nextCursor)}`, {
        key: tenant.testKey,
      }),
      400,
      'invalid_cursor',
    );
  });
});

describe('consent.recorded outbox event', () => {
  const outboxEvents = async (organizationId: string) =>
    (
      (await rawSql(t.store).execute(
        sql`select type, environment, data from webhook_events where organization_id = ${organizationId} and type = 'consent.recorded'`,
      )) as unknown as { rows: Array<{ type: string; environment: string; data: Record<string, any> }> }
    ).rows;

  it('is not stored while no enabled destination takes consent.recorded: nothing would read it', async () => {
    const own = await t.tenant();
    const site = await createReadySite(t, own.testKey);
    await subscribeWebhook(t, own.testKey, ['channel.created']);
    const res = await postPreferences(t, site.siteKey, preferencesBody(site));
    expect(res.status).toBe(201);
    expect(await outboxEvents(own.organizationId)).toEqual([]);
  });

  it('is written with the evidence, masked, in the same transaction', async () => {
    await subscribeWebhook(t, tenant.testKey, ['consent.recorded']);
    const subjectId = newSubjectId();
    const res = await postPreferences(t, siteA.siteKey, preferencesBody(siteA, { subjectId }));
    expect(res.status).toBe(201);
    const rows = await outboxEvents(tenant.organizationId);
    const event = rows.find((r) => r.data.id === res.body.data.id);
    expect(event?.environment).toBe('test');
    const read = await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.testKey });
    expect(event?.data).toEqual(read.body.data);
    expect(JSON.stringify(rows)).not.toContain(subjectId);
  });
});
