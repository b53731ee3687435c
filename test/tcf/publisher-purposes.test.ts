import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { csvObjects, download, requestExport } from '../exports/helpers.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
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
 * docs/guides/tcf.md, "The channel's own purposes in the string": a TC string
 * carries the channel's purposes as custom purposes of its Publisher TC segment, in the channel's
 * order (necessary, analytics, marketing: custom purposes 1, 2, 3). The service records it when it
 * agrees with the decisions, keeps the custom consents in the evidence's decoded summary (reads,
 * both export formats, receipt hashes), and refuses one that grants what the decisions deny.
 * Strings made by IAB's encoder, as tcf.js makes them.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
const CMP_ID = 300;

function tcString(customConsents: number[], numCustomPurposes = 3) {
  const model = new TCModel(new GVL(buildVendorList({ version: 100 }) as never));
  model.cmpId = CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'FR';
  model.purposeConsents.set([1, 2]);
  model.vendorConsents.set([2]);
  model.vendorsDisclosed.set([1, 2, 8]);
  model.numCustomPurposes = numCustomPurposes;
  model.publisherCustomConsents.set(customConsents);
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
afterAll(() => t.close());

const decide = (overrides: Record<string, unknown>) =>
  postPreferences(t, site.siteKey, preferencesBody(site, overrides));

describe('the channel’s purposes in the Publisher TC segment', () => {
  it('the notice’s purposes, as the SDK gets them, are in the order custom purposes number them', async () => {
    const config = (await t.http.get(`/v1/public/sites/${site.siteKey}/config?region=FR`)).body.data;
    expect(config.purposes.map((p: { key: string }) => p.key)).toEqual([
      'necessary',
      'analytics',
      'marketing',
    ]);
  });

  it('a string agreeing with the decisions is recorded; the evidence keeps its custom consents, on reads and in both exports', async () => {
    const value = tcString([1, 2]);
    const decoded = TCString.decode(value);
    expect(decoded.numCustomPurposes).toBe(3);
    const subjectId = newSubjectId();
    const res = await decide({ subjectId, tcString: value });
    expect(res.status, res.text).toBe(201);
    const id: string = res.body.data.id;
    const event = (await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey })).body.data;
    expect(event.tcf.publisherCustomConsents).toEqual([1, 2]);
    expect(event.receipt.hash).toBe(res.body.data.receipt.hash);

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
    const line = lines.find((l) => l.id === id);
    expect(line.tcf.publisherCustomConsents).toEqual([1, 2]);
    for (const { receipt, ...rest } of lines) expect(evidenceLeafHash(rest)).toBe(receipt.hash);
    const row = csvObjects(await run('csv')).find((r) => r.id === id);
    expect(row?.['tcf.publisherCustomConsents']).toBe('[1,2]');
  });

  it('a string without the Publisher TC segment, or with too few custom purposes: 422 tc_contradicts_decisions', async () => {
    // The channel has optional purposes of its own: a string that leaves them out carries no choice of them.
    for (const [value, message] of [
      [tcString([], 0), /^has no Publisher TC segment/],
      [tcString([1], 2), /^carries 2 custom purposes in its Publisher TC segment, fewer than the notice's 3/],
    ] as const) {
      expect(TCString.decode(value).numCustomPurposes).toBeLessThan(3);
      const problem = expectProblemShape(await decide({ tcString: value }), 422, 'validation_failed');
      expect(problem.errors).toEqual([
        { path: '/tcString', code: 'tc_contradicts_decisions', message: expect.stringMatching(message) },
      ]);
      expect(problem.detail).toMatch(
        /encode them as custom purposes|custom purpose n is the notice's n-th purpose/,
      );
    }
  });

  it('a string granting a purpose the decisions deny: 422 tc_contradicts_decisions', async () => {
    const problem = expectProblemShape(
      await decide({ tcString: tcString([1, 2, 3]) }),
      422,
      'validation_failed',
    );
    expect(problem.errors.map((e: { code?: string }) => e.code)).toEqual(['tc_contradicts_decisions']);
  });
});
