import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, newSubjectId, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';

/** The consent state of a subject, read through the API, kept by consent writes. */
describe('consent state', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ env: SITES_TEST_ENV });
    tenant = await t.tenant();
  });
  afterAll(() => t?.close());

  const stateOf = (channelId: string, subjectId: string, key = tenant.testKey) =>
    t.http.get(`/v1/consent-state?${new URLSearchParams({ channelId, subjectId })}`, { key });

  it('answers the newest decision per purpose, with its event, lifetime and region', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const subjectId = newSubjectId();
    const first = await recordConsent(t, site, {
      subjectId,
      decisions: { analytics: 'granted', marketing: 'granted' },
    });
    t.clock.advance(5_000);
    const second = await recordConsent(
      t,
      site,
      { subjectId, decisions: { analytics: 'granted', marketing: 'denied' }, source: 'preference_center' },
      { headers: {} },
    );
    const res = await stateOf(site.channelId, subjectId);
    expect(res.status, res.text).toBe(200);
    const state = res.body.data;
    expect(state).toEqual({
      channelId: site.channelId,
      subject: { pseudonym: expect.stringMatching(/^psn_\*{4}[0-9a-f]{4}$/) },
      purposes: {
        analytics: {
          decision: 'granted',
          recordedAt: second.recordedAt,
          eventId: second.id,
          configVersion: site.configVersion,
          source: 'preference_center',
        },
        marketing: {
          decision: 'denied',
          recordedAt: second.recordedAt,
          eventId: second.id,
          configVersion: site.configVersion,
          source: 'preference_center',
        },
        necessary: expect.objectContaining({ decision: 'granted', eventId: second.id }),
      },
      lastRecordedAt: second.recordedAt,
      expiresAt: new Date(Date.parse(second.recordedAt) + 180 * 86_400_000)
        .toISOString()
        .replace('.000Z', 'Z'),
      expired: false,
      region: null,
      regime: 'opt-in',
      // Not a TCF channel: no decision carried a TC string.
      tcString: null,
      tcStringRecorded: null,
    });
    expect(first.id).not.toBe(second.id);
    // The masked pseudonym is the one evidence reads show for the subject; the raw id appears nowhere.
    const evidence = await t.http.get(`/v1/evidence?${new URLSearchParams({ subjectId })}`, {
      key: tenant.testKey,
    });
    expect(state.subject.pseudonym).toBe(evidence.body.data[0].subject.pseudonym);
    expect(res.text).not.toContain(subjectId);

    // Past consentMaxAgeDays the state says so (the decision is still the newest one).
    t.clock.advance(181 * 86_400_000);
    expect((await stateOf(site.channelId, subjectId)).body.data.expired).toBe(true);
  });

  it('a withdrawal in the same second as the grant before it always wins (the order of recording, not a tie on the second)', async () => {
    // recordedAt is whole seconds and the clock does not move: before the state followed the order
    // of recording, a tie fell to the random event id, and about one pair in four kept "granted".
    const site = await createReadySite(t, tenant.testKey);
    const all = (decision: 'granted' | 'denied') => ({ analytics: decision, marketing: decision });
    const pairs = Array.from({ length: 40 }, (_, i) => ({
      subjectId: newSubjectId(),
      order: i % 2 === 0 ? (['granted', 'denied'] as const) : (['denied', 'granted'] as const),
    }));
    for (const { subjectId, order } of pairs) {
      const first = await recordConsent(t, site, { subjectId, decisions: all(order[0]) });
      const second = await recordConsent(t, site, { subjectId, decisions: all(order[1]) });
      expect(second.recordedAt).toBe(first.recordedAt);
    }
    const res = await t.http.post('/v1/consent-state/lookups', {
      key: tenant.testKey,
      body: { channelId: site.channelId, subjectIds: pairs.map((p) => p.subjectId) },
    });
    expect(res.status, res.text).toBe(200);
    const kept = res.body.data.map((entry: any) => entry.state.purposes.marketing.decision);
    expect(kept).toEqual(pairs.map((p) => p.order[1]));
  });

  it('404 for a subject with no decision, an unknown channel, or a channel of the other environment; 422 for bad input', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const subjectId = newSubjectId();
    await recordConsent(t, site, { subjectId });
    expectProblemShape(await stateOf(site.channelId, newSubjectId()), 404, 'not_found');
    expectProblemShape(await stateOf('ch_unknown', subjectId), 404, 'not_found');
    expectProblemShape(await stateOf(site.channelId, subjectId, tenant.liveKey), 404, 'not_found');
    const other = await t.tenant();
    expectProblemShape(await stateOf(site.channelId, subjectId, other.testKey), 404, 'not_found');
    const missing = await t.http.get(`/v1/consent-state?channelId=${site.channelId}`, {
      key: tenant.testKey,
    });
    expectProblemShape(missing, 422, 'validation_failed');
  });

  it('lookups: up to 100 subjects in input order, null for those without a decision', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const a = newSubjectId();
    const b = newSubjectId();
    await recordConsent(t, site, { subjectId: a, decisions: { analytics: 'granted', marketing: 'granted' } });
    await recordConsent(t, site, { subjectId: b, decisions: { analytics: 'denied', marketing: 'denied' } });
    const nobody = newSubjectId();
    const res = await t.http.post('/v1/consent-state/lookups', {
      key: tenant.testKey,
      body: { channelId: site.channelId, subjectIds: [b, nobody, a, b] },
    });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data.map((r: any) => r.subjectId)).toEqual([b, nobody, a, b]);
    expect(data[0].state.purposes.analytics.decision).toBe('denied');
    expect(data[1].state).toBeNull();
    expect(data[2].state.purposes.analytics.decision).toBe('granted');
    expect(data[3]).toEqual(data[0]);

    for (const subjectIds of [[], Array.from({ length: 101 }, newSubjectId)]) {
      const bad = await t.http.post('/v1/consent-state/lookups', {
        key: tenant.testKey,
        body: { channelId: site.channelId, subjectIds },
      });
      expectProblemShape(bad, 422, 'validation_failed');
    }
    const unknown = await t.http.post('/v1/consent-state/lookups', {
      key: tenant.testKey,
      body: { channelId: 'ch_unknown', subjectIds: [a] },
    });
    expectProblemShape(unknown, 404, 'not_found');
  });
});
