import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { acString, parseAcString } from '../../src/shared/additional-consent.ts';
import { download, requestExport } from '../exports/helpers.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { writeAtpFile } from '../helpers/atp.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { asTcfJsWrites, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * docs/guides/tcf.md, "Google Additional Consent": a channel's
 * `tcf.googleAdditionalConsent`, and a decision's `addtlConsent` (Google's version 2 format,
 * `2~<consented>~dv.<disclosed>`), checked against the format and the channel's providers and kept
 * in the evidence's `tcf.addtlConsent` (reads, exports, receipt hashes).
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let plainTcf: ReadySite;
/** A save with googleAdditionalConsent before Google's ATP list was mirrored. */
let beforeList: Awaited<ReturnType<TestApp['http']['patch']>>;
const CMP_ID = 300;
const PROVIDERS = [89, 1301, 2822];

function tcString() {
  const model = new TCModel(new GVL(buildVendorList({ version: 100 }) as never));
  model.cmpId = CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'FR';
  model.purposeConsents.set([1, 2]);
  model.vendorConsents.set([2]);
  model.vendorsDisclosed.set([1, 2, 8]);
  return TCString.encode(model);
}

async function tcfSite(name: string, tcf: Record<string, unknown>) {
  const ready = await createReadySite(t, tenant.testKey, { name });
  const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
    key: tenant.testKey,
    body: { tcf: { cmpId: CMP_ID, vendorIds: [1, 2, 8], publisherCountryCode: 'FR', ...tcf } },
  });
  expect(patched.status, patched.text).toBe(200);
  return { ...ready, channel: patched.body.data, configVersion: patched.body.data.configVersion };
}

beforeAll(async () => {
  // Google's ATP list from a file (the installs without internet): providers 89, 1301, 2822, 4000.
  ({ t } = await startTcfTestApp({ env: { ...SITES_TEST_ENV, GOOGLE_ATP_URL: writeAtpFile() } }));
  tenant = await t.tenant();
  plainTcf = await tcfSite('Plain', {});
  beforeList = await t.http.patch(`/v1/channels/${plainTcf.channelId}`, {
    key: tenant.testKey,
    body: {
      tcf: {
        cmpId: CMP_ID,
        vendorIds: [1, 2, 8],
        publisherCountryCode: 'FR',
        googleAdditionalConsent: { providerIds: [89] },
      },
    },
  });
  // The refused save asked the worker for the list (in a transaction of its own, after the
  // answer): once asked, the worker's next run fetches it.
  for (let i = 0; i < 100 && !(await t.app.services.tcf.atpState(t.store.db)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await t.worker.runDue();
  site = await tcfSite('News', { googleAdditionalConsent: { providerIds: [2822, 89, 1301] } });
});
afterAll(() => t.close());

describe('the AC string format (Google’s Additional Consent specification, version 2)', () => {
  it('writes and reads 2~<consented>~dv.<disclosed>, a consented provider not listed again', () => {
    expect(acString([1, 35, 41, 101], [1, 9, 21, 35, 41, 81, 101])).toBe('2~1.35.41.101~dv.9.21.81');
    expect(acString([], [9, 21])).toBe('2~~dv.9.21');
    expect(parseAcString('2~1.35.41.101~dv.9.21.81')).toEqual({
      consented: [1, 35, 41, 101],
      disclosed: [9, 21, 81],
    });
    expect(parseAcString('2~~dv.')).toEqual({ consented: [], disclosed: [] });
    // Google's specification allows `~dv` to end the string when nothing is left to disclose.
    expect(parseAcString('2~1.35~dv')).toEqual({ consented: [1, 35], disclosed: [] });
    expect(parseAcString('2~~dv')).toEqual({ consented: [], disclosed: [] });
    for (const bad of [
      '1~1.35',
      '2~1.35',
      '2~1..35~dv.',
      '2~01~dv.',
      '2~1~dv.1',
      '2~a~dv.',
      '2~1~dv.2~',
      ' 2~~dv.',
    ])
      expect(parseAcString(bad), bad).toBeNull();
  });
});

describe('channel tcf.googleAdditionalConsent', () => {
  it('defaults to null, is returned with provider ids sorted, and reaches the SDK’s config', async () => {
    expect(plainTcf.channel.tcf.googleAdditionalConsent).toBeNull();
    expect(site.channel.tcf.googleAdditionalConsent).toEqual({ providerIds: PROVIDERS });
    const config = (await t.http.get(`/v1/public/sites/${site.siteKey}/config?region=FR`)).body.data;
    // Named as Google's ATP list names them, for the layers (a policy URL not http(s) would be null).
    expect(config.tcf.googleAdditionalConsent).toEqual({
      providerIds: PROVIDERS,
      providers: [
        { id: 89, name: 'Tabmo Test', policyUrl: 'https://tabmo.example/privacy' },
        { id: 1301, name: 'Yieldlab, "Test" AG', policyUrl: 'https://yieldlab.example/privacy' },
        { id: 2822, name: 'Wunderkind Test', policyUrl: 'https://wunderkind.example/privacy' },
      ],
    });
  });

  it('is 409 invalid_state before Google’s ATP list is mirrored, and asks the worker for it', async () => {
    const problem = expectProblemShape(beforeList, 409, 'invalid_state');
    expect(problem.detail).toContain('GOOGLE_ATP_URL');
    const state = await t.app.services.tcf.atpState(t.store.db);
    expect(state).toMatchObject({ consecutiveFailures: 0 });
    expect(state?.providers?.map((p) => p.id)).toEqual([89, 1301, 2822, 4000]);
  });

  it('refuses provider ids that are not on Google’s ATP list (422, naming each)', async () => {
    const res = await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: tenant.testKey,
      body: {
        tcf: {
          cmpId: CMP_ID,
          vendorIds: [1, 2, 8],
          publisherCountryCode: 'FR',
          googleAdditionalConsent: { providerIds: [89, 77, 5555] },
        },
      },
    });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      expect.objectContaining({
        path: '/tcf/googleAdditionalConsent/providerIds',
        message: expect.stringContaining('providers 77, 5555 are not on Google’s ATP list'),
      }),
    ]);
    // Nothing changed.
    const read = await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey });
    expect(read.body.data.tcf.googleAdditionalConsent).toEqual({ providerIds: PROVIDERS });
  });

  it('a provider visitors have not seen is a material change; removing one is not', async () => {
    const channel = await tcfSite('Providers', { googleAdditionalConsent: { providerIds: [89] } });
    const save = (providerIds: number[]) =>
      t.http.patch(`/v1/channels/${channel.channelId}`, {
        key: tenant.testKey,
        body: {
          tcf: {
            cmpId: CMP_ID,
            vendorIds: [1, 2, 8],
            publisherCountryCode: 'FR',
            googleAdditionalConsent: { providerIds },
          },
        },
      });
    const reconsent = async (saved: Awaited<ReturnType<typeof save>>) => {
      expect(saved.status, saved.text).toBe(200);
      const v = saved.body.data.configVersion;
      const read = await t.http.get(`/v1/channels/${channel.channelId}/config-versions/${v}`, {
        key: tenant.testKey,
      });
      expect(read.status, read.text).toBe(200);
      return read.body.data.reconsent;
    };
    expect(await reconsent(await save([89, 4000]))).toBe(true);
    expect(await reconsent(await save([4000]))).toBe(false);
  });

  it('refuses provider ids that are not positive integers, repeated, or an empty list', async () => {
    for (const providerIds of [[0], [1, 1], [], ['89']]) {
      const res = await t.http.patch(`/v1/channels/${site.channelId}`, {
        key: tenant.testKey,
        body: {
          tcf: {
            cmpId: CMP_ID,
            vendorIds: [1, 2, 8],
            publisherCountryCode: 'FR',
            googleAdditionalConsent: { providerIds },
          },
        },
      });
      expectProblemShape(res, 422, 'validation_failed');
    }
  });
});

describe('a decision’s addtlConsent', () => {
  const decide = (target: ReadySite, overrides: Record<string, unknown>) =>
    postPreferences(t, target.siteKey, preferencesBody(target, overrides));

  it('is kept in the evidence’s tcf.addtlConsent, on reads and in the export, with its receipt hash', async () => {
    const value = '2~89.2822~dv.1301';
    const res = await decide(site, { tcString: tcString(), addtlConsent: value });
    expect(res.status, res.text).toBe(201);
    const id: string = res.body.data.id;
    const event = (await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey })).body.data;
    expect(event.tcf.addtlConsent).toBe(value);
    const requested = await requestExport(t, tenant.testKey, { channelId: site.channelId, format: 'jsonl' });
    await t.worker.runDue();
    const file = await download(t, tenant.testKey, requested.id);
    const lines = file.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.find((l) => l.id === id).tcf.addtlConsent).toBe(value);
    for (const { receipt, ...rest } of lines) expect(evidenceLeafHash(rest)).toBe(receipt.hash);
  });

  it('takes `2~…~dv` with no trailing dot when every provider is consented (Google’s specification allows it)', async () => {
    const value = '2~89.1301.2822~dv';
    const res = await decide(site, { tcString: tcString(), addtlConsent: value });
    expect(res.status, res.text).toBe(201);
    const event = (await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.testKey })).body.data;
    expect(event.tcf.addtlConsent).toBe(value);
  });

  it('refuses another format (ac_invalid), a provider not chosen (ac_provider_not_selected), no tcString or no AC on the channel (ac_not_expected)', async () => {
    const codes = async (target: ReadySite, body: Record<string, unknown>) => {
      const problem = expectProblemShape(await decide(target, body), 422, 'validation_failed');
      return problem.errors.map((e: { path: string; code?: string }) => `${e.path} ${e.code}`);
    };
    for (const bad of ['1~89.2822', '2~89~dv.89', '2~89;2822~dv.', 'yes'])
      expect(await codes(site, { tcString: tcString(), addtlConsent: bad })).toEqual([
        '/addtlConsent ac_invalid',
      ]);
    expect(await codes(site, { tcString: tcString(), addtlConsent: '2~89.7~dv.1301' })).toEqual([
      '/addtlConsent ac_provider_not_selected',
    ]);
    expect(await codes(site, { addtlConsent: '2~89~dv.' })).toEqual(['/addtlConsent ac_not_expected']);
    // A provider the layers showed left out of both lists: Google could not tell it was disclosed.
    for (const partial of ['2~89~dv.1301', '2~89.2822~dv', '2~~dv.'])
      expect(await codes(site, { tcString: tcString(), addtlConsent: partial })).toEqual([
        '/addtlConsent ac_invalid',
      ]);
    const problem = expectProblemShape(
      await decide(site, { tcString: tcString(), addtlConsent: '2~89~dv.1301' }),
      422,
      'validation_failed',
    );
    expect(problem.errors[0].message).toBe(
      "leaves out provider 2822, which the channel's googleAdditionalConsent shows: list every provider, consented or after ~dv.",
    );
    expect(await codes(plainTcf, { tcString: tcString(), addtlConsent: '2~89~dv.' })).toEqual([
      '/addtlConsent ac_not_expected',
    ]);
  });
});
