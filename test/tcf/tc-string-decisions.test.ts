import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceEventBody } from '../../src/modules/evidence/evidence.presenters.ts';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { csvObjects, download, requestExport } from '../exports/helpers.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { rawSql } from '../helpers/app.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
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
 * Decisions with a TC string (docs/guides/tcf.md): checked with IAB's library, kept with what was
 * decoded of it in the evidence, its exports (both formats, both export paths) and the consent
 * state; events without one keep the canonical form they always had.
 */

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let plain: ReadySite;

const CMP_ID = 300;

/** A TC string as tcf.js makes one: IAB's encoder, on the vendor list the tests serve. */
function tcString(options: { cmpId?: number; vendorListVersion?: number; vendorConsents?: number[] } = {}) {
  const model = new TCModel(new GVL(buildVendorList({ version: options.vendorListVersion ?? 100 }) as never));
  model.cmpId = options.cmpId ?? CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'FR';
  model.consentLanguage = 'EN';
  model.purposeConsents.set([1, 2, 7]);
  model.vendorConsents.set(options.vendorConsents ?? [2, 8]);
  model.specialFeatureOptins.set([1]);
  model.vendorsDisclosed.set([1, 2, 8]);
  return TCString.encode(model);
}

beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  plain = await createReadySite(t, tenant.testKey, { name: 'Plain' });
  const ready = await createReadySite(t, tenant.testKey, { name: 'News' });
  const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
    key: tenant.testKey,
    body: { tcf: { cmpId: CMP_ID, vendorIds: [1, 2, 8], publisherCountryCode: 'FR' } },
  });
  expect(patched.status, patched.text).toBe(200);
  site = { ...ready, channel: patched.body.data, configVersion: patched.body.data.configVersion };
});
afterAll(() => t.close());

const decide = (target: ReadySite, overrides: Record<string, unknown> = {}) =>
  postPreferences(t, target.siteKey, preferencesBody(target, overrides));
const evidence = async (id: string) =>
  (await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey })).body.data;

describe('a decision with a TC string', () => {
  const subjectId = newSubjectId();
  const value = tcString();
  let withString: string;
  let without: string;

  it('is recorded with the string and what the service decoded of it', async () => {
    const res = await decide(site, { subjectId, tcString: value });
    expect(res.status, res.text).toBe(201);
    withString = res.body.data.id;
    const event = await evidence(withString);
    expect(event.tcString).toBe(value);
    expect(event.tcf).toEqual({
      vendorListVersion: 100,
      purposeConsents: [1, 2, 7],
      vendorConsents: [2, 8],
      specialFeatureOptins: [1],
      purposeLegitimateInterests: [],
      vendorLegitimateInterests: [],
      vendorsDisclosed: [1, 2, 8],
      policyVersion: 5,
      consentScreen: 0,
      publisherCustomConsents: [],
    });
    expect(event.receipt.hash).toBe(res.body.data.receipt.hash);

    // The same subject later decides without one: that event has neither member.
    const later = await decide(site, { subjectId });
    expect(later.status, later.text).toBe(201);
    without = later.body.data.id;
    const plainEvent = await evidence(without);
    expect(plainEvent).not.toHaveProperty('tcString');
    expect(plainEvent).not.toHaveProperty('tcf');
  });

  it('the consent state carries the subject’s newest TC string (null for a subject that never sent one)', async () => {
    const state = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${subjectId}`, {
      key: tenant.testKey,
    });
    expect(state.status, state.text).toBe(200);
    expect(state.body.data.tcStringRecorded).toBe(value);
    // What tcf.js would serve now: re-encoded (test/evidence/consent-state-served-tc-string.test.ts).
    expect(state.body.data.tcString).toEqual(expect.any(String));
    const newer = tcString({ vendorConsents: [1] });
    expect((await decide(site, { subjectId, tcString: newer })).status).toBe(201);
    const lookups = await t.http.post('/v1/consent-state/lookups', {
      key: tenant.testKey,
      body: { channelId: site.channelId, subjectIds: [subjectId] },
    });
    expect(lookups.body.data[0].state.tcStringRecorded).toBe(newer);
    const other = newSubjectId();
    expect((await decide(site, { subjectId: other })).status).toBe(201);
    const otherState = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${other}`, {
      key: tenant.testKey,
    });
    expect(otherState.body.data.tcString).toBeNull();
  });

  it('exports carry both, in JSONL and CSV, and every line’s receipt hash is its canonical form’s', async () => {
    const run = async (format: 'jsonl' | 'csv') => {
      const requested = await requestExport(t, tenant.testKey, { channelId: site.channelId, format });
      await t.worker.runDue();
      const file = await download(t, tenant.testKey, requested.id);
      expect(file.status, file.text.slice(0, 200)).toBe(200);
      return file.text;
    };
    const lines = (await run('jsonl'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const byId = new Map(lines.map((line) => [line.id, line]));
    expect(byId.get(withString)).toMatchObject({ tcString: value, tcf: { vendorListVersion: 100 } });
    expect(byId.get(without)).not.toHaveProperty('tcString');
    for (const line of lines) {
      const { receipt, ...event } = line;
      expect(evidenceLeafHash(event)).toBe(receipt.hash);
    }
    const rows = new Map(csvObjects(await run('csv')).map((row) => [row.id, row]));
    expect(rows.get(withString)).toMatchObject({
      tcString: value,
      'tcf.vendorListVersion': '100',
      'tcf.purposeConsents': '[1,2,7]',
      'tcf.vendorConsents': '[2,8]',
      'tcf.specialFeatureOptins': '[1]',
      'tcf.purposeLegitimateInterests': '[]',
      'tcf.vendorsDisclosed': '[1,2,8]',
      'tcf.policyVersion': '5',
      'tcf.consentScreen': '0',
    });
    expect(rows.get(without)).toMatchObject({ tcString: '', 'tcf.vendorConsents': '' });
  });
});

describe('a TC string that is refused: 422 validation_failed, nothing recorded', () => {
  const refused = async (target: ReadySite, value: string, message: RegExp, code?: string) => {
    const subjectId = newSubjectId();
    const problem = expectProblemShape(
      await decide(target, { subjectId, tcString: value }),
      422,
      'validation_failed',
    );
    expect(problem.errors).toEqual([
      { path: '/tcString', ...(code ? { code } : {}), message: expect.stringMatching(message) },
    ]);
    const state = await t.http.get(`/v1/consent-state?channelId=${target.channelId}&subjectId=${subjectId}`, {
      key: tenant.testKey,
    });
    expect(state.status).toBe(404);
  };

  it('garbage, a string that does not decode', async () => {
    await refused(site, 'not a tc string', /^is not a TC string this service accepts: it is not base64url$/);
    await refused(site, 'CAAAAAAA', /^is not a TC string that decodes: /);
  });

  it('another CMP id, an unknown vendor list version', async () => {
    await refused(
      site,
      tcString({ cmpId: 301 }),
      /^names CMP id 301, not this channel's \(300\)$/,
      'tc_channel_mismatch',
    );
    await refused(
      site,
      tcString({ vendorListVersion: 99 }),
      /^names vendor list version 99, which this service does not hold$/,
    );
  });

  it('a channel without TCF settings', async () => {
    await refused(plain, tcString(), /has no TCF settings$/);
  });

  it('a string too long for the schema is refused before anything is decoded', async () => {
    const res = await decide(site, { tcString: 'C'.repeat(10_001) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

describe('an event recorded before the evidence kept legitimate interests and DisclosedVendors', () => {
  it('keeps its canonical form: four tcf members on reads and in exports, its receipt hash its own', async () => {
    const res = await decide(site, { tcString: tcString() });
    expect(res.status, res.text).toBe(201);
    const id: string = res.body.data.id;
    // The event as the service stored it before: tcf with four members, the receipt hash of that form.
    const old = {
      vendorListVersion: 100,
      purposeConsents: [1, 2, 7],
      vendorConsents: [2, 8],
      specialFeatureOptins: [1],
    };
    await rawSql(t.store).execute(
      sql`update evidence_events set tcf = ${JSON.stringify(old)}::jsonb where id = ${id}`,
    );
    const scope = { organizationId: tenant.organizationId, environment: 'test' as const };
    const row = await t.app.services.evidence.get(t.store.scope(null), scope, id);
    const hash = evidenceLeafHash(evidenceEventBody(row, 'unmasked'));
    await rawSql(t.store).execute(sql`update evidence_events set receipt_hash = ${hash} where id = ${id}`);

    expect((await evidence(id)).tcf).toEqual(old);
    // The export (PostgreSQL builds its lines in SQL, the embedded store with the presenter) writes
    // each form member for member, in the presenter's order, and each line's hash is its receipt's.
    const requested = await requestExport(t, tenant.testKey, { channelId: site.channelId, format: 'jsonl' });
    await t.worker.runDue();
    const file = await download(t, tenant.testKey, requested.id);
    const lines = file.text.trim().split('\n');
    const line = lines.find((l) => l.includes(`"id":"${id}"`));
    expect(line).toContain(`"tcf":${JSON.stringify(old)}`);
    const newer = lines.find((l) => l.includes('"consentScreen"'));
    expect(newer).toMatch(
      /"tcf":\{"vendorListVersion":100,"purposeConsents":\[[\d,]*\],"vendorConsents":\[[\d,]*\],"specialFeatureOptins":\[[\d,]*\],"purposeLegitimateInterests":\[[\d,]*\],"vendorLegitimateInterests":\[[\d,]*\],"vendorsDisclosed":\[[\d,]*\],"policyVersion":5,"consentScreen":0,"publisherCustomConsents":\[[\d,]*\]\}/,
    );
    for (const text of lines) {
      const { receipt, ...event } = JSON.parse(text);
      expect(evidenceLeafHash(event)).toBe(receipt.hash);
    }
  });
});
