import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionCookieName, readDecisionCookie } from '../../src/shared/decision-cookie.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
  WILDCARD_MATCH,
} from '../helpers/sites.ts';

/**
 * Sibling domains (docs/guides/keep-the-choice.md): a token asked for on one registrable domain,
 * redeemed once on another registered origin within 120 s, records the visitor's decision again
 * there (source "handoff", the same subject pseudonym, handoff {fromOrigin, eventId}). Every token
 * that cannot be redeemed is the same 404 handoff_not_found; a newer decision of the visitor's own
 * on the target is never overwritten.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
const OTHER = 'https://www.example.net';

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, TRUST_PROXY: 'true' } });
  tenant = await t.tenant();
  site = await crossDomainSite();
});
afterAll(() => t?.close());

/** shop.example.com, *.example.org and www.example.net, handing choices over. */
async function crossDomainSite(): Promise<ReadySite> {
  const ready = await createReadySite(t, tenant.testKey);
  const added = await t.http.post(`/v1/channels/${ready.channelId}/origins`, {
    key: tenant.testKey,
    body: { origin: OTHER },
  });
  expect(added.status, added.text).toBe(201);
  const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
    key: tenant.testKey,
    body: { crossDomain: true },
  });
  expect(patched.status, patched.text).toBe(200);
  return { ...ready, configVersion: patched.body.data.configVersion };
}

const create = (subjectId: string, target: string, origin = SITE_ORIGIN, s = site) =>
  t.http.post(`/v1/public/sites/${s.siteKey}/handoffs`, { body: { subjectId, target }, headers: { origin } });
const redeem = (token: unknown, subjectId: string, origin = WILDCARD_MATCH, s = site, headers = {}) =>
  t.http.post(`/v1/public/sites/${s.siteKey}/handoffs/redeem`, {
    body: { token, subjectId },
    headers: { origin, ...headers },
  });

/** A visitor's decision on `origin`; returns its subject id and event. */
async function decide(
  origin = SITE_ORIGIN,
  decisions = { analytics: 'granted', marketing: 'denied' },
  s = site,
) {
  const subjectId = newSubjectId();
  const res = await postPreferences(t, s.siteKey, preferencesBody(s, { subjectId, decisions }), { origin });
  expect(res.status, res.text).toBe(201);
  return { subjectId, event: res.body.data as { id: string; recordedAt: string } };
}

async function tokenFor(subjectId: string, target = WILDCARD_MATCH, origin = SITE_ORIGIN, s = site) {
  const res = await create(subjectId, target, origin, s);
  expect(res.status, res.text).toBe(201);
  return res.body.data.token as string;
}

const evidenceOf = async (query: string) => {
  const res = await t.http.get(`/v1/evidence?channelId=${site.channelId}&${query}`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data as any[];
};

describe('POST …/handoffs and …/handoffs/redeem', () => {
  it('hand the decision over: recorded again on the target for the same subject, once', async () => {
    const { subjectId, event } = await decide();
    const created = await create(subjectId, WILDCARD_MATCH);
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.token).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(Date.parse(created.body.data.expiresAt) - Math.floor(t.clock.now().getTime() / 1000) * 1000).toBe(
      120_000,
    );

    t.clock.advance(2_000);
    const target = newSubjectId();
    const res = await redeem(created.body.data.token, target);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
      configVersion: site.configVersion,
      recordedAt: event.recordedAt,
    });

    // Found by the original visitor's id: the original event and the one the handoff recorded.
    const events = await evidenceOf(`subjectId=${encodeURIComponent(subjectId)}`);
    expect(events.map((e) => e.source)).toEqual(['handoff', 'banner']);
    const [handed, original] = events;
    expect(handed).toMatchObject({
      source: 'handoff',
      origin: WILDCARD_MATCH,
      decisions: original.decisions,
      configVersion: original.configVersion,
      subject: original.subject,
      handoff: { fromOrigin: SITE_ORIGIN, eventId: event.id },
    });
    expect(original).not.toHaveProperty('handoff');
    expect(Date.parse(handed.recordedAt)).toBeGreaterThan(Date.parse(original.recordedAt));
    const bySource = await evidenceOf('source=handoff');
    expect(bySource.map((e) => e.id)).toContain(handed.id);
    expect(await evidenceOf(`subjectId=${encodeURIComponent(target)}`)).toEqual([]);

    // Spent: a second redeem is the one 404.
    expectProblemShape(await redeem(created.body.data.token, target), 404, 'handoff_not_found');
  });

  it('one answer for every token that cannot be redeemed', async () => {
    const { subjectId } = await decide();
    const other = await crossDomainSite();
    const foreign = await tokenFor(newSubjectId(), WILDCARD_MATCH, SITE_ORIGIN, other);
    const expired = await tokenFor(subjectId);
    t.clock.advance(121_000);
    const bound = await tokenFor(subjectId);
    const undecided = await tokenFor(newSubjectId());
    const cases: Array<[string, Promise<any>]> = [
      [
        'unknown',
        redeem(randomBytes(32).toString('base64url').replace(/[-_]/g, 'a').slice(0, 43), newSubjectId()),
      ],
      ['malformed', redeem('not a token', newSubjectId())],
      ['too long', redeem('a'.repeat(100), newSubjectId())],
      ['expired', redeem(expired, newSubjectId())],
      ['of another site', redeem(foreign, newSubjectId())],
      ['from another registered origin', redeem(bound, newSubjectId(), OTHER)],
      ['for a visitor without a decision', redeem(undecided, newSubjectId())],
    ];
    const problems = [];
    for (const [what, pending] of cases) {
      const problem = expectProblemShape(await pending, 404, 'handoff_not_found');
      problems.push({ what, detail: problem.detail, title: problem.title });
    }
    expect(new Set(problems.map((p) => `${p.title}|${p.detail}`)).size, JSON.stringify(problems)).toBe(1);
    // A redeem from the wrong origin does not spend the token: from its own origin it still works.
    expect((await redeem(bound, newSubjectId())).status).toBe(200);
  });

  it('a concurrent double redeem gives one 200 and one 404, and one event', async () => {
    const { subjectId } = await decide();
    const token = await tokenFor(subjectId);
    const answers = await Promise.all([redeem(token, newSubjectId()), redeem(token, newSubjectId())]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    const handed = (await evidenceOf(`subjectId=${encodeURIComponent(subjectId)}`)).filter(
      (e) => e.source === 'handoff',
    );
    expect(handed).toHaveLength(1);
  });

  it('a newer decision of the visitor’s own on the target is not overwritten: it is the answer', async () => {
    const { subjectId } = await decide();
    const token = await tokenFor(subjectId);
    t.clock.advance(5_000);
    const own = await decide(WILDCARD_MATCH, { analytics: 'denied', marketing: 'denied' });
    const res = await redeem(token, own.subjectId);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      decisions: { necessary: 'granted', analytics: 'denied', marketing: 'denied' },
      configVersion: site.configVersion,
      recordedAt: own.event.recordedAt,
    });
    const handed = (await evidenceOf(`subjectId=${encodeURIComponent(subjectId)}`)).filter(
      (e) => e.source === 'handoff',
    );
    expect(handed).toEqual([]);
    // Spent all the same.
    expectProblemShape(await redeem(token, own.subjectId), 404, 'handoff_not_found');
  });

  it('the choice travels on from the target: a second hop hands the visitor’s own decision', async () => {
    const { subjectId, event } = await decide();
    const onTarget = newSubjectId();
    expect((await redeem(await tokenFor(subjectId), onTarget)).status).toBe(200);
    t.clock.advance(1_000);
    const hop = await tokenFor(onTarget, OTHER, WILDCARD_MATCH);
    const res = await redeem(hop, newSubjectId(), OTHER);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.recordedAt).toBe(event.recordedAt);
    const handed = (await evidenceOf(`subjectId=${encodeURIComponent(subjectId)}`)).filter(
      (e) => e.source === 'handoff',
    );
    expect(handed.map((e) => [e.origin, e.handoff])).toEqual([
      [OTHER, { fromOrigin: WILDCARD_MATCH, eventId: event.id }],
      [WILDCARD_MATCH, { fromOrigin: SITE_ORIGIN, eventId: event.id }],
    ]);
  });

  it('a decision older than consentMaxAgeDays is not handed over', async () => {
    const { subjectId } = await decide();
    t.clock.advance(181 * 86_400_000);
    expectProblemShape(await redeem(await tokenFor(subjectId), newSubjectId()), 404, 'handoff_not_found');
  });

  it('refuses a target that is not a registered origin on another domain, and a channel without crossDomain', async () => {
    const subjectId = newSubjectId();
    for (const target of [
      'https://evil.example.io',
      SITE_ORIGIN,
      'blog.example.org',
      'https://blog.example.org/',
      'https://a.b.example.org',
      'javascript:alert(1)',
      `https://${'a'.repeat(290)}.example.org`,
    ]) {
      const problem = expectProblemShape(await create(subjectId, target), 422, 'validation_failed');
      expect(
        problem.errors.map((e: { path: string }) => e.path),
        target,
      ).toEqual(['/target']);
    }
    expectProblemShape(
      await t.http.post(`/v1/public/sites/${site.siteKey}/handoffs`, {
        body: { subjectId, target: WILDCARD_MATCH, extra: 1 },
        headers: { origin: SITE_ORIGIN },
      }),
      422,
      'validation_failed',
    );
    expectProblemShape(await create('short', WILDCARD_MATCH), 422, 'validation_failed');
    expectProblemShape(
      await create(subjectId, WILDCARD_MATCH, 'https://evil.example.io'),
      403,
      'origin_not_allowed',
    );
    expectProblemShape(await redeem('x', subjectId, 'https://evil.example.io'), 403, 'origin_not_allowed');
    const big = await t.http.post(`/v1/public/sites/${site.siteKey}/handoffs`, {
      rawBody: JSON.stringify({ subjectId, target: WILDCARD_MATCH, pad: 'x'.repeat(70 * 1024) }),
      headers: { origin: SITE_ORIGIN, 'content-type': 'application/json' },
    });
    expectProblemShape(big, 413, 'payload_too_large');

    const plain = await createReadySite(t, tenant.testKey);
    const off = expectProblemShape(
      await create(subjectId, WILDCARD_MATCH, SITE_ORIGIN, plain),
      422,
      'validation_failed',
    );
    expect(off.detail).toContain('crossDomain');
  });

  it('through the first-party path the redeem sets the decision cookie for the visitor on the target', async () => {
    await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: tenant.testKey,
      body: { firstPartyPath: '/consent' },
    });
    const { subjectId, event } = await decide();
    const token = await tokenFor(subjectId);
    const onTarget = newSubjectId();
    const res = await redeem(token, onTarget, WILDCARD_MATCH, site, {
      'x-forwarded-host': new URL(WILDCARD_MATCH).host,
    });
    expect(res.status, res.text).toBe(200);
    const [cookie] = res.headers.getSetCookie();
    expect(cookie.startsWith(`${decisionCookieName(site.siteKey)}=`)).toBe(true);
    expect(readDecisionCookie(cookie.split('; ')[0], site.siteKey)).toEqual({
      s: onTarget,
      d: res.body.data.decisions,
      v: res.body.data.configVersion,
      t: Date.parse(event.recordedAt),
    });
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });
});
