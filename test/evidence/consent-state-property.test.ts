import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  newSubjectId,
  type ReadySite,
  recordConsent,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * The property: for random sequences of decisions, purges and config changes across
 * subjects, the consent state always equals a replay of each subject's remaining evidence (read
 * through GET /v1/evidence, newest first in the order the test recorded them: the state's "newest"
 * is the order of recording, which recordedAt's whole seconds cannot tell apart within a second),
 * on the store the suite runs on. Each run starts 20 days
 * in the past and never reaches the present, so its purges touch only its own events.
 */
let t: TestApp;
let tenant: Tenant;
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

type Action =
  | { kind: 'decide'; subject: number; grants: boolean[]; source: 'banner' | 'preference_center' }
  | { kind: 'wait'; hours: number }
  | { kind: 'purge' }
  | { kind: 'archive-marketing' }
  | { kind: 'add-purpose' };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('decide' as const),
      subject: fc.integer({ min: 0, max: 2 }),
      grants: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      source: fc.constantFrom('banner' as const, 'preference_center' as const),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 0, max: 30 }) }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'purge' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'archive-marketing' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'add-purpose' as const }) },
);

/** The state a replay of the evidence gives: per purpose the first (newest) event deciding it. */
function replay(events: Array<Record<string, any>>) {
  const purposes: Record<string, unknown> = {};
  for (const e of events) {
    for (const [key, decision] of Object.entries(e.decisions)) {
      purposes[key] ??= {
        decision,
        recordedAt: e.recordedAt,
        eventId: e.id,
        configVersion: e.configVersion,
        source: e.source,
      };
    }
  }
  return { purposes, lastRecordedAt: events[0].recordedAt };
}

/** A subject's remaining events, newest first in `recorded` (event ids in the order they were sent). */
async function evidenceOf(site: ReadySite, subjectId: string, recorded: string[]) {
  const query = new URLSearchParams({ channelId: site.channelId, subjectId, limit: '100' });
  const res = await t.http.get(`/v1/evidence?${query}`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  const events = res.body.data as Array<Record<string, any>>;
  return events.sort((a, b) => recorded.indexOf(b.id) - recorded.indexOf(a.id));
}

/** A config change: `marketing` archived, or a new optional purpose; returns the new configVersion. */
async function changeConfig(site: ReadySite, change: 'archive-marketing' | string): Promise<number> {
  const base = `/v1/channels/${site.channelId}/purposes`;
  let purposePath = base;
  if (change === 'archive-marketing') {
    const list = await t.http.get(base, { key: tenant.testKey });
    const marketing = list.body.data.find((p: { key: string }) => p.key === 'marketing');
    purposePath = `${base}/${marketing.id}/archive`;
  }
  const body = change === 'archive-marketing' ? undefined : { key: change, name: change };
  const res = await t.http.post(purposePath, { key: tenant.testKey, body });
  expect(res.status, res.text).toBeLessThan(300);
  return (await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey })).body.data
    .configVersion;
}

describe('consent state property', () => {
  it('equals a replay of the remaining evidence after any sequence of decisions, purges and config changes', async () => {
    const present = t.clock.now().getTime();
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 12 }), async (actions) => {
        t.clock.set(new Date(present - 20 * 24 * HOUR));
        const site = await createReadySite(t, tenant.testKey);
        const subjects = [newSubjectId(), newSubjectId(), newSubjectId()];
        let version = site.configVersion;
        const optional = ['analytics', 'marketing'];
        let added = 0;
        const recorded: string[] = [];
        for (const step of actions) {
          if (step.kind === 'decide') {
            const decisions = Object.fromEntries(
              optional.map((key, i) => [key, step.grants[i % step.grants.length] ? 'granted' : 'denied']),
            );
            const event = await recordConsent(t, site, {
              subjectId: subjects[step.subject],
              decisions,
              configVersion: version,
              source: step.source,
            });
            recorded.push(event.id);
          } else if (step.kind === 'wait') {
            t.clock.advance(step.hours * HOUR);
          } else if (step.kind === 'purge') {
            await t.app.services.evidence.purgeExpired();
          } else if (step.kind === 'archive-marketing') {
            if (!optional.includes('marketing')) continue;
            version = await changeConfig(site, 'archive-marketing');
            optional.splice(optional.indexOf('marketing'), 1);
          } else {
            const key = `extra_${++added}`;
            version = await changeConfig(site, key);
            optional.push(key);
          }
        }
        for (const subjectId of subjects) {
          const events = await evidenceOf(site, subjectId, recorded);
          const res = await t.http.get(
            `/v1/consent-state?${new URLSearchParams({ channelId: site.channelId, subjectId })}`,
            { key: tenant.testKey },
          );
          if (events.length === 0) {
            expect(res.status, res.text).toBe(404);
            continue;
          }
          expect(res.status, res.text).toBe(200);
          const { purposes, lastRecordedAt } = res.body.data;
          expect({ purposes, lastRecordedAt }).toEqual(replay(events));
        }
      }),
      { numRuns: 12 },
    );
    t.clock.set(new Date(present));
    // Each purge at a new hour of the clock also makes that hour's evidence partitions and drops
    // the expired ones (src/modules/evidence/partitions.ts): table DDL, slow on the embedded store.
  }, 120_000);
});
