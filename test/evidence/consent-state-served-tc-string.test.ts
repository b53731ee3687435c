import { GVL, type TCModel, TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import type { VendorListServer } from '../helpers/gvl.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * The consent state's `tcString` is the string tcf.js would serve the subject now
 * (docs/guides/tcf.md, "What is kept"):
 * the recorded one re-encoded against the channel's current vendors, vendor list and settings,
 * while `tcStringRecorded` stays what the evidence keeps. The expectation is computed by tcf.js's
 * own functions (sdk/src/tcf/tc-model.ts: stillValid, choiceOf, encodeChoice, as its keptNow does)
 * on the slice and config the SDK would fetch, so the server's re-encoding (the tcf module's
 * tc-string-served.ts) cannot drift from the SDK's unnoticed.
 */
/**
 * tcf.js's own encoding functions. Imported by a path tsc does not follow: the project's Node
 * type check has no DOM library, and tc-model.ts's types reach the layers' DOM code (sdk/ has its
 * own type check, with it). Vitest runs the file as tcf.js's bundle runs it.
 */
interface SdkTcModel {
  stillValid(tcString: string, tcf: EncodeSettings): TCModel | null;
  choiceOf(model: TCModel, decisions: Record<string, string>): SdkChoice;
  encodeChoice(gvl: GVL, tcf: EncodeSettings, choice: SdkChoice, earlier?: TCModel): string;
}
type EncodeSettings = Record<string, unknown>;
type SdkChoice = Record<string, unknown>;
const TC_MODEL_PATH = '../../sdk/src/tcf/tc-model.ts';
const { stillValid, choiceOf, encodeChoice } = (await import(TC_MODEL_PATH)) as SdkTcModel;

let t: TestApp;
let gvlServer: VendorListServer;
let tenant: Tenant;
let site: ReadySite;
const CMP_ID = 300;
const DECISIONS = { necessary: 'granted', analytics: 'granted', marketing: 'denied' } as const;

/** What tcf.js starts with on this channel now: the config's tcf and purposes, and the slice's list. */
async function sdkView(): Promise<{ tcf: EncodeSettings; gvl: GVL }> {
  const config = (await t.http.get(`/v1/public/sites/${site.siteKey}/config?region=FR`)).body.data;
  const url = new URL(config.tcf.vendorListUrl);
  const slice = await t.http.get(`${url.pathname}${url.search}&lang=en`);
  expect(slice.status, slice.text).toBe(200);
  const gvl = new GVL(JSON.parse(slice.text));
  // IAB's encoder clones the list with the model; the clone of a list lent another language
  // (tc-model.ts's `speaking`) takes that language at once and then fetches its file by
  // XMLHttpRequest, which Node lacks (an unhandled rejection here; in a browser, a request). The
  // string does not wait for the file, so sharing the list, as the server does, gives the same one.
  Object.defineProperty(gvl, 'clone', {
    value(this: GVL) {
      return this;
    },
  });
  return {
    tcf: { ...config.tcf, purposeKeys: config.purposes.map((p: { key: string }) => p.key) },
    gvl,
  };
}

/** The string tcf.js's keptNow would serve for `kept` now; null when it would ask again. */
async function sdkServes(kept: string): Promise<string | null> {
  const { tcf, gvl } = await sdkView();
  const model = stillValid(kept, tcf);
  return model ? encodeChoice(gvl, tcf, choiceOf(model, DECISIONS), model) : null;
}

async function stateOf(subjectId: string) {
  const res = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${subjectId}`, {
    key: tenant.testKey,
  });
  expect(res.status, res.text).toBe(200);
  const lookup = await t.http.post('/v1/consent-state/lookups', {
    key: tenant.testKey,
    body: { channelId: site.channelId, subjectIds: [subjectId] },
  });
  expect(lookup.status, lookup.text).toBe(200);
  // One answer, one builder: the lookup says what the single read says.
  expect(lookup.body.data[0].state).toEqual(res.body.data);
  return res.body.data as { tcString: string | null; tcStringRecorded: string | null };
}

const patchTcf = async (tcf: Record<string, unknown> | null) => {
  const res = await t.http.patch(`/v1/channels/${site.channelId}`, { key: tenant.testKey, body: { tcf } });
  expect(res.status, res.text).toBe(200);
  // Decisions answer the current notice.
  site = { ...site, channel: res.body.data, configVersion: res.body.data.configVersion };
};
const settings = { cmpId: CMP_ID, vendorIds: [1, 2, 8], publisherCountryCode: 'FR' };

let subjectId: string;
let recorded: string;

beforeAll(async () => {
  ({ t, gvl: gvlServer } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey, { name: 'News' });
  await patchTcf(settings);
  // The visitor's choice on the first layer, made by tcf.js's own encoder.
  const { tcf, gvl } = await sdkView();
  recorded = encodeChoice(gvl, tcf, {
    purposeConsents: [1, 2, 3, 4, 7],
    purposeLegitimateInterests: [2, 7, 8, 9, 10],
    vendorConsents: [1, 2, 8],
    vendorLegitimateInterests: [1, 2, 8],
    specialFeatureOptins: [1, 2],
    decisions: DECISIONS,
    consentScreen: 1,
  });
  subjectId = newSubjectId();
  const res = await postPreferences(
    t,
    site.siteKey,
    preferencesBody(site, {
      subjectId,
      decisions: { analytics: 'granted', marketing: 'denied' },
      tcString: recorded,
    }),
  );
  // A string tcf.js makes passes every rule of the server.
  expect(res.status, res.text).toBe(201);
});
afterAll(() => t.close());

describe('the consent state’s tcString, as tcf.js would serve it now', () => {
  it('is tcf.js’s re-encoding while nothing changed; tcStringRecorded is the evidence’s', async () => {
    const state = await stateOf(subjectId);
    expect(state.tcStringRecorded).toBe(recorded);
    expect(state.tcString).toBe(await sdkServes(recorded));
  });

  it('keeps the language the choice was shown in (German here, one of the channel’s languages)', async () => {
    const { tcf, gvl } = await sdkView();
    const shownInGerman = TCString.decode(recorded);
    shownInGerman.consentLanguage = 'DE';
    const german = encodeChoice(gvl, tcf, choiceOf(shownInGerman, DECISIONS), shownInGerman);
    expect(TCString.decode(german).consentLanguage).toBe('DE');
    const other = newSubjectId();
    const res = await postPreferences(
      t,
      site.siteKey,
      preferencesBody(site, {
        subjectId: other,
        decisions: { analytics: 'granted', marketing: 'denied' },
        tcString: german,
      }),
    );
    expect(res.status, res.text).toBe(201);
    const state = await stateOf(other);
    expect(state.tcString).toBe(await sdkServes(german));
    expect(TCString.decode(state.tcString as string).consentLanguage).toBe('DE');
  });

  it('follows a vendor removed from the channel: no signal for it, no longer disclosed, the choice’s dates kept', async () => {
    await patchTcf({ ...settings, vendorIds: [1, 2] });
    const state = await stateOf(subjectId);
    expect(state.tcStringRecorded).toBe(recorded);
    expect(state.tcString).not.toBe(recorded);
    expect(state.tcString).toBe(await sdkServes(recorded));
    const served = TCString.decode(state.tcString as string);
    const before = TCString.decode(recorded);
    expect([...served.vendorsDisclosed.values()].sort()).toEqual([1, 2]);
    expect(served.vendorConsents.has(8)).toBe(false);
    expect(served.vendorConsents.has(2)).toBe(true);
    expect(served.created.getTime()).toBe(before.created.getTime());
    expect(served.lastUpdated.getTime()).toBe(before.lastUpdated.getTime());
    expect(served.consentScreen).toBe(1);
  });

  it('follows a pinned cmpVersion and the newest vendor list the channel adopted', async () => {
    await patchTcf({ ...settings, vendorIds: [1, 2], cmpVersion: 9 });
    gvlServer.publish(buildVendorList({ version: 101 }));
    await refreshVendorList(t);
    const state = await stateOf(subjectId);
    const served = TCString.decode(state.tcString as string);
    expect(served.cmpVersion).toBe(9);
    expect(served.vendorListVersion).toBe(101);
    expect(state.tcString).toBe(await sdkServes(recorded));
    expect(state.tcStringRecorded).toBe(recorded);
  });

  it('is null where tcf.js would ask again (another CMP id) or serve nothing (TCF off); the recorded one stays', async () => {
    await patchTcf({ ...settings, cmpId: 301 });
    expect(await sdkServes(recorded)).toBeNull();
    expect(await stateOf(subjectId)).toMatchObject({ tcString: null, tcStringRecorded: recorded });
    await patchTcf(null);
    expect(await stateOf(subjectId)).toMatchObject({ tcString: null, tcStringRecorded: recorded });
  });
});
