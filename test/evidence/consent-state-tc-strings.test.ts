import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsentStateReader } from '../../src/modules/evidence/consent-state.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { rawSql } from '../helpers/app.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { asTcfJsWrites, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * The consent state's TC string is kept with the state (consent_state_tc_strings),
 * not found by walking the subject's events: a lookup's tcString is always the subject's newest
 * decision's that carried one, after any order of decisions, a purge, and the backfill.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
const CMP_ID = 300;
const HOUR = 3600_000;

/** A TC string as tcf.js makes one (IAB's encoder), created at `created`, granting `vendors`. */
function tcString(vendors: number[], created = new Date()) {
  const model = new TCModel(new GVL(buildVendorList({ version: 100 }) as never));
  model.cmpId = CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'FR';
  model.consentLanguage = 'EN';
  model.purposeConsents.set([1, 2, 7]);
  model.vendorConsents.set(vendors);
  model.vendorsDisclosed.set([1, 2, 8]);
  model.created = created;
  model.lastUpdated = created;
  return TCString.encode(model);
}

beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  const ready = await createReadySite(t, tenant.testKey, { name: 'News' });
  const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
    key: tenant.testKey,
    body: { tcf: { cmpId: CMP_ID, vendorIds: [1, 2, 8], publisherCountryCode: 'FR' } },
  });
  expect(patched.status, patched.text).toBe(200);
  site = { ...ready, channel: patched.body.data, configVersion: patched.body.data.configVersion };
});
afterAll(() => t?.close());

async function decide(subjectId: string, tc: string | null) {
  const res = await postPreferences(
    t,
    site.siteKey,
    preferencesBody(site, { subjectId, ...(tc ? { tcString: tc } : {}) }),
  );
  expect(res.status, res.text).toBe(201);
}

async function lookup(subjectIds: string[]): Promise<Array<string | null | undefined>> {
  const res = await t.http.post('/v1/consent-state/lookups', {
    key: tenant.testKey,
    body: { channelId: site.channelId, subjectIds },
  });
  expect(res.status, res.text).toBe(200);
  // The string as recorded (the served one, re-encoded now, is served-tc-string.test.ts's).
  return res.body.data.map((entry: { state: { tcStringRecorded: string | null } | null }) =>
    entry.state === null ? undefined : entry.state.tcStringRecorded,
  );
}

const [a, b, c] = [tcString([2]), tcString([8]), tcString([2, 8])];

describe('the consent state’s TC string', () => {
  /** Each subject's decisions in order (null: a decision without a TC string), and what the state must say. */
  const histories: Array<[Array<string | null>, string | null]> = [
    [[a], a],
    [[a, null], a],
    [[a, b], b],
    [[null], null],
    [[a, null, b, null], b],
    [[a, b, c], c],
    [[null, c], c],
  ];
  const subjects = histories.map(() => newSubjectId());

  it('is the newest decision’s that carried one, for every subject of a lookup', async () => {
    // Rounds: every subject's first decision, then every second one… so writes of subjects interleave.
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        histories.map(([steps], i) => (round < steps.length ? decide(subjects[i], steps[round]) : null)),
      );
    }
    const unknown = newSubjectId();
    expect(await lookup([...subjects, unknown])).toEqual([
      ...histories.map(([, expected]) => expected),
      undefined,
    ]);
    // Two decisions sent one after the other, in the same second: the second's string wins.
    const fast = newSubjectId();
    await decide(fast, b);
    await decide(fast, a);
    expect(await lookup([fast])).toEqual([a]);
    const single = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${fast}`, {
      key: tenant.testKey,
    });
    expect(single.body.data.tcStringRecorded).toBe(a);
  });

  it('is read from the state: the same before (a replay of the evidence) and after the backfill builds it', async () => {
    await rawSql(t.store).execute(
      sql`delete from consent_state_tc_strings where organization_id = ${tenant.organizationId}`,
    );
    await rawSql(t.store).execute(
      sql`update consent_state_backfill set done_at = null, after_organization_id = null, after_id = null, events = 0`,
    );
    const reader = createConsentStateReader({
      store: t.store,
      clock: t.clock,
      pseudonymize: t.app.services.evidence.pseudonymize,
      findChannel: t.app.services.channels.findChannel,
    });
    const scope = { organizationId: tenant.organizationId, environment: 'test' as const };
    const expected = histories.map(([, tc]) => tc);
    const tcOf = async () =>
      (await reader.states(scope, site.channelId, subjects)).map((s) => s?.tcStringRecorded);
    expect(await tcOf()).toEqual(expected);
    expect((await reader.backfill({ batch: 500 })).done).toBe(true);
    const rows = await rawSql(t.store).execute(
      sql`select count(*)::int as n from consent_state_tc_strings where channel_id = ${site.channelId}`,
    );
    expect((rows as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBeGreaterThanOrEqual(6);
    expect(await tcOf()).toEqual(expected);
    expect(await lookup(subjects)).toEqual(expected);
  });

  it('a purged event’s string goes; one kept by a newer event stays', async () => {
    const present = t.clock.now();
    const [gone, kept] = [newSubjectId(), newSubjectId()];
    // 30 h ago: both decide with a TC string (test events are purged after 24 h) …
    t.clock.set(new Date(present.getTime() - 30 * HOUR));
    const old = tcString([2], t.clock.now());
    await decide(gone, old);
    await decide(kept, old);
    // … 20 h ago: one decides again without a string, the other with a new one.
    t.clock.set(new Date(present.getTime() - 20 * HOUR));
    const newer = tcString([8], t.clock.now());
    await decide(gone, null);
    await decide(kept, newer);
    t.clock.set(present);
    expect(await lookup([gone, kept])).toEqual([old, newer]);
    await t.app.services.evidence.purgeExpired();
    expect(await lookup([gone, kept])).toEqual([null, newer]);
  });
});
