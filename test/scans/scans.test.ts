import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { rawSql, startTestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { LOCAL_WEBHOOKS_ENV, subscribeWebhook } from '../helpers/webhooks.ts';
import { browserSkipReason } from '../sdk/harness.ts';
import {
  type FixtureSite,
  SDK_PAGE_LABELS as LABELS,
  sdkFixturePage,
  startFixtureSite,
  TRACKERS,
} from './fixture-site.ts';

/**
 * Tracker scans end to end: the API, the worker's job driving real Chromium through
 * the channel's own SDK on a fixture site served on 127.0.0.1, the findings and their verdicts.
 */

const SCAN_ENV = {
  ...SITES_TEST_ENV,
  ...LOCAL_WEBHOOKS_ENV,
  SCAN_ALLOW_PRIVATE_TARGETS: 'true',
  SCAN_PAGE_TIMEOUT_SECONDS: '20',
};

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let fixture: FixtureSite;

const post = (path: string, body: unknown, key = tenant.testKey) => t.http.post(path, { key, body });
const get = (path: string, key = tenant.testKey) => t.http.get(path, { key });

beforeAll(async () => {
  t = await startTestApp({ env: SCAN_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  fixture = await startFixtureSite({
    page: sdkFixturePage(t.baseUrl, site.siteKey),
    routes: {
      // A page of the site without the snippet: a scan of it cannot have seen a choice.
      '/no-snippet': (_req, res) => {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end('<!doctype html><html lang="en"><title>Plain</title><h1>Plain</h1></html>');
      },
    },
  });
  expect((await post(`/v1/channels/${site.channelId}/origins`, { origin: fixture.origin })).status).toBe(201);
  for (const [name, cookie] of [
    ['Blocked analytics tag', LABELS.blocked],
    ['Inline analytics tag', LABELS.unblocked],
  ]) {
    const res = await post(`/v1/channels/${site.channelId}/technologies`, {
      name,
      purposeKeys: ['analytics'],
      cookies: [{ name: cookie }],
    });
    expect(res.status, res.text).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await fixture?.close();
  await t?.close();
});

describe('scan requests', () => {
  it('refuses a url that is not on one of the channel’s origins (422 invalid_origin)', async () => {
    const res = await post(`/v1/channels/${site.channelId}/scans`, { url: 'https://elsewhere.example.net/' });
    expectProblemShape(res, 422, 'invalid_origin');
    expect(res.body.errors[0].path).toBe('/url');
    expectProblemShape(
      await post(`/v1/channels/${site.channelId}/scans`, { url: 'ftp://x/' }),
      422,
      'invalid_origin',
    );
    expectProblemShape(
      await post(`/v1/channels/${site.channelId}/scans`, { nope: 1 }),
      422,
      'validation_failed',
    );
  });

  it('is not found for another organization’s channel and needs channels:manage', async () => {
    const other = await t.tenant();
    expectProblemShape(
      await post(`/v1/channels/${site.channelId}/scans`, {}, other.testKey),
      404,
      'not_found',
    );
    const reader = await tenant.key(['channels:read']);
    expectProblemShape(
      await post(`/v1/channels/${site.channelId}/scans`, {}, reader.secret),
      403,
      'insufficient_scope',
    );
    expectProblemShape(await get(`/v1/channels/${site.channelId}/scans/scn_nope`), 404, 'not_found');
  });

  it('refuses a live channel’s private address even with SCAN_ALLOW_PRIVATE_TARGETS', async () => {
    const channel = await post('/v1/channels', { name: 'Live shop' }, tenant.liveKey);
    expect(channel.status, channel.text).toBe(201);
    const id = channel.body.data.id;
    expect(
      (await post(`/v1/channels/${id}/origins`, { origin: 'http://127.0.0.1:9' }, tenant.liveKey)).status,
    ).toBe(201);
    const res = await post(`/v1/channels/${id}/scans`, {}, tenant.liveKey);
    expectProblemShape(res, 422, 'invalid_origin');
    expect(res.body.detail).toContain('non-public');
  });
});

describe('the queue', () => {
  // The console sends an Idempotency-Key with every call; on the embedded store a read beside the
  // request's open transaction would wait forever, so the channel and its origins are read in it.
  it('queues with an Idempotency-Key and replays the same scan for the same key', async () => {
    const created = await post('/v1/channels', { name: 'Keyed' });
    const channelId = created.body.data.id;
    expect((await post(`/v1/channels/${channelId}/origins`, { origin: fixture.origin })).status).toBe(201);
    const send = () =>
      t.http.post(`/v1/channels/${channelId}/scans`, {
        key: tenant.testKey,
        body: {},
        headers: { 'Idempotency-Key': `keyed-${channelId}` },
      });
    const first = await send();
    expect(first.status, first.text).toBe(202);
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    // Only the queue is under test here: the scan is taken off it so the worker does not run it.
    await rawSql(t.store).execute(
      sql`update scans set status = 'failed', failure_reason = 'test' where id = ${first.body.data.id}`,
    );
  });

  it('queues one scan of the root of each origin without a wildcard, one at a time', async () => {
    const created = await post('/v1/channels', { name: 'Queue' });
    const channelId = created.body.data.id;
    for (const origin of [fixture.origin, 'https://*.example.org']) {
      expect((await post(`/v1/channels/${channelId}/origins`, { origin })).status).toBe(201);
    }
    const res = await post(`/v1/channels/${channelId}/scans`, undefined);
    expect(res.status, res.text).toBe(202);
    const scan = res.body.data;
    expect(scan).toMatchObject({
      channelId,
      status: 'queued',
      configVersion: expect.any(Number),
      summary: null,
      findings: [],
      failureReason: null,
    });
    expect(scan.id).toMatch(/^scn_/);
    // The wildcard origin names no page to load.
    expect(scan.urls).toEqual([`${fixture.origin}/`]);
    expect(res.headers.get('location')).toBe(`/v1/channels/${channelId}/scans/${scan.id}`);
    const again = await post(`/v1/channels/${channelId}/scans`, { url: `${fixture.origin}/` });
    expectProblemShape(again, 409, 'invalid_state');
    expect(again.body.detail).toContain(scan.id);
    // With an Idempotency-Key the request runs in its own transaction: still a 409, and nothing waits.
    const keyed = await t.http.post(`/v1/channels/${channelId}/scans`, {
      key: tenant.testKey,
      body: {},
      headers: { 'Idempotency-Key': `scan-${scan.id}` },
    });
    expectProblemShape(keyed, 409, 'invalid_state');
    expect((await get(`/v1/channels/${channelId}/scans`)).body.data).toHaveLength(1);
    // Only the queue is under test here: the scan is taken off it so the worker does not run it.
    await rawSql(t.store).execute(
      sql`update scans set status = 'failed', failure_reason = 'test' where id = ${scan.id}`,
    );
  });
});

describe('the organization’s cap', () => {
  it('queues at most 3 scans of an organization at once, over all its channels: then 429 rate_limited', async () => {
    const org = await t.tenant();
    const scanOf = (channelId: string, key = org.testKey) =>
      t.http.post(`/v1/channels/${channelId}/scans`, { key, body: {} });
    const channelIds: string[] = [];
    for (let n = 0; n < 4; n++) {
      const created = await post('/v1/channels', { name: `Capped ${n}` }, org.testKey);
      channelIds.push(created.body.data.id);
      const origin = await post(
        `/v1/channels/${created.body.data.id}/origins`,
        { origin: fixture.origin },
        org.testKey,
      );
      expect(origin.status, origin.text).toBe(201);
    }
    const scanIds: string[] = [];
    for (const channelId of channelIds.slice(0, 3)) {
      const res = await scanOf(channelId);
      expect(res.status, res.text).toBe(202);
      scanIds.push(res.body.data.id);
    }
    const fourth = await scanOf(channelIds[3]);
    expectProblemShape(fourth, 429, 'rate_limited');
    expect(fourth.headers.get('retry-after')).toBe('60');
    expect(fourth.body.detail).toContain('At most 3 scans');
    // A channel that already has one is still told so (409), whatever the cap.
    expectProblemShape(await scanOf(channelIds[0]), 409, 'invalid_state');
    // Another organization is not held by this one's queue.
    const elsewhere = await post('/v1/channels', { name: 'Elsewhere' }, tenant.testKey);
    const elsewhereOrigin = await post(`/v1/channels/${elsewhere.body.data.id}/origins`, {
      origin: fixture.origin,
    });
    expect(elsewhereOrigin.status, elsewhereOrigin.text).toBe(201);
    const theirs = await scanOf(elsewhere.body.data.id, tenant.testKey);
    expect(theirs.status, theirs.text).toBe(202);
    scanIds.push(theirs.body.data.id);
    // One ends: a place is free again.
    await rawSql(t.store).execute(
      sql`update scans set status = 'failed', failure_reason = 'test' where id = ${scanIds[0]}`,
    );
    const again = await scanOf(channelIds[3]);
    expect(again.status, again.text).toBe(202);
    scanIds.push(again.body.data.id);
    // Only the queue is under test here: the scans are taken off it so the worker does not run them.
    for (const id of scanIds) {
      await rawSql(t.store).execute(
        sql`update scans set status = 'failed', failure_reason = 'test' where id = ${id}`,
      );
    }
  });
});

describe.skipIf(skipWith(browserSkipReason))('a scan of the fixture site in Chromium', () => {
  let scanId: string;

  it('finds each tracker in the right phase with the right verdict', async () => {
    await subscribeWebhook(t, tenant.testKey, ['scan.completed']);
    const res = await post(`/v1/channels/${site.channelId}/scans`, { url: `${fixture.origin}/` });
    expect(res.status, res.text).toBe(202);
    scanId = res.body.data.id;
    const started = Date.now();
    await t.worker.runDue();
    const elapsed = Date.now() - started;
    const scan = (await get(`/v1/channels/${site.channelId}/scans/${scanId}`)).body.data;
    expect(scan.status, scan.failureReason).toBe('succeeded');
    console.log(`1-URL scan through the worker took ${elapsed} ms`);
    expect(scan.regime).toBe('opt-in');
    expect(scan.warnings).toEqual([]);

    type F = { kind: string; name: string; phase: string; violation: boolean; technologyId: string | null };
    const findings: F[] = scan.findings;
    const phasesOf = (kind: string, name: string) =>
      findings.filter((f) => f.kind === kind && f.name === name).map((f) => f.phase);
    const one = (kind: string, name: string, phase: string) =>
      findings.find((f) => f.kind === kind && f.name === name && f.phase === phase);

    // 1. Declared and blocked: only after accept, no violation.
    expect(phasesOf('cookie', LABELS.blocked)).toEqual(['after-accept']);
    expect(one('cookie', LABELS.blocked, 'after-accept')).toMatchObject({
      technologyId: expect.stringMatching(/^tec_/),
      purposeKey: 'analytics',
      violation: false,
    });
    // 2. Declared, set before consent by an unblocked script: a violation before consent and after reject.
    expect(phasesOf('cookie', LABELS.unblocked).sort()).toEqual([
      'after-accept',
      'after-reject',
      'before-consent',
    ]);
    expect(one('cookie', LABELS.unblocked, 'before-consent')).toMatchObject({
      violation: true,
      purposeKey: 'analytics',
    });
    expect(one('cookie', LABELS.unblocked, 'after-reject')?.violation).toBe(true);
    expect(one('cookie', LABELS.unblocked, 'after-accept')?.violation).toBe(false);
    // 3. Undeclared first-party cookies nobody can classify: undeclared, not guessed a violation.
    for (const name of [LABELS.firstParty, TRACKERS.serverCookie]) {
      expect(one('cookie', name, 'before-consent')).toMatchObject({
        technologyId: null,
        classification: null,
        thirdParty: false,
        violation: false,
      });
    }
    // 4. An undeclared third-party request to the second host.
    const thirdHost = new URL(fixture.thirdPartyOrigin).host;
    expect(one('request', thirdHost, 'before-consent')).toMatchObject({
      thirdParty: true,
      technologyId: null,
      detail: 'image',
    });
    // 5. _ga, classified by the known-cookie database: an analytics cookie before consent.
    expect(one('cookie', '_ga', 'before-consent')).toMatchObject({
      technologyId: null,
      classification: { category: 'Analytics', vendor: expect.stringMatching(/Google/) },
      violation: true,
    });
    // The banner's own cookie and the service's host are the service's: necessary, not undeclared.
    const own = findings.find((f) => f.name.startsWith('cs_consent_'));
    expect(own).toMatchObject({ classification: { vendor: 'consent-service' }, violation: false });
    // Violations come first.
    const firstOk = findings.findIndex((f) => !f.violation);
    expect(findings.slice(firstOk).some((f) => f.violation)).toBe(false);
    expect(scan.summary).toEqual({
      cookies: expect.any(Number),
      storage: expect.any(Number),
      requests: expect.any(Number),
      undeclared: expect.any(Number),
      violations: 2, // declared_unblocked and _ga
    });
    // The scan recorded no evidence: the banner's decision posts were dropped.
    const evidence = await get(`/v1/evidence?channelId=${site.channelId}`);
    expect(evidence.body.data).toEqual([]);
  }, 180_000);

  it('sends scan.completed with the summary, not the findings', async () => {
    const rows = await rawSql(t.store).execute(
      sql`select data from webhook_events where organization_id = ${tenant.organizationId} and type = 'scan.completed'`,
    );
    const events = (rows as unknown as { rows: Array<{ data: Record<string, unknown> }> }).rows;
    const event = events.map((row) => row.data).find((data) => data.id === scanId);
    expect(event).toMatchObject({ id: scanId, status: 'succeeded', summary: { violations: 2 } });
    expect(event).not.toHaveProperty('findings');
  });

  it('lists the channel’s scans newest first', async () => {
    const list = await get(`/v1/channels/${site.channelId}/scans?limit=1`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([scanId]);
    expect(list.body.meta.nextCursor).toBeNull();
  });

  it('warns when the banner did not load: its reject and accept phases saw no choice', async () => {
    const res = await post(`/v1/channels/${site.channelId}/scans`, { url: `${fixture.origin}/no-snippet` });
    expect(res.status, res.text).toBe(202);
    await t.worker.runDue();
    const scan = (await get(`/v1/channels/${site.channelId}/scans/${res.body.data.id}`)).body.data;
    expect(scan.status, scan.failureReason).toBe('succeeded');
    expect(scan.warnings).toEqual([expect.stringContaining("The channel's banner did not load on any page")]);
  }, 120_000);

  it('fails with a clear reason when no browser is installed', async () => {
    const noBrowser = await startTestApp({
      store: t.store,
      env: { ...SCAN_ENV, SCANNER_CHROMIUM_PATH: '/nonexistent/chromium' },
    });
    try {
      const res = await noBrowser.http.post(`/v1/channels/${site.channelId}/scans`, {
        key: tenant.testKey,
        body: { url: `${fixture.origin}/` },
      });
      expect(res.status, res.text).toBe(202);
      await noBrowser.worker.runDue();
      const scan = (await get(`/v1/channels/${site.channelId}/scans/${res.body.data.id}`)).body.data;
      expect(scan.status).toBe('failed');
      expect(scan.failureReason).toContain('No browser is installed for scans');
      expect(scan.findings).toEqual([]);
    } finally {
      await noBrowser.close();
    }
  });
});
