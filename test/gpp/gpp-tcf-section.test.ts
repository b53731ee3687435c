import { GppModel } from '@iabgpp/cmpapi';
import { GVL, Segment, SegmentEncoder, TCModel, TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
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
 * A GPP string's EU TCF section (tcfeuv2, section 2) is a TC string, and gets the checks a
 * decision's `tcString` gets, with the same error codes: a GPP string whose TCF section consented
 * vendors 1..9999 on a channel of five vendors was stored with 201. The hostile sections are made
 * by IAB's GPP library (`@iabgpp/cmpapi`) field by field, with no semantic pass to make them
 * compliant; the compliant one by `@iabtechlabtcf/core`, as tcf.js makes it, set as the section.
 */

const CMP_ID = 300;
/** Every vendor of the tests' list (version 100): a channel of five vendors. */
const CHANNEL_VENDORS = [1, 2, 8, 21, 32];

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let plain: ReadySite;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A GPP string of one tcfeuv2 section whose fields are exactly these (the library's defaults else). */
function gppOfFields(fields: Record<string, unknown>): string {
  const model = new GppModel();
  const all: Record<string, unknown> = {
    CmpId: CMP_ID,
    VendorListVersion: 100,
    PolicyVersion: 5,
    IsServiceSpecific: true,
    PublisherCountryCode: 'FR',
    VendorsDisclosed: CHANNEL_VENDORS,
    ...fields,
  };
  for (const [field, value] of Object.entries(all)) model.setFieldValue('tcfeuv2', field, value);
  return model.encode();
}

function modelOf(
  options: { isServiceSpecific?: boolean; purposeLegitimateInterests?: number[] } = {},
): TCModel {
  const model = new TCModel(new GVL(buildVendorList({ version: 100 }) as never));
  model.cmpId = CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = options.isServiceSpecific ?? true;
  model.publisherCountryCode = 'FR';
  model.purposeConsents.set([1, 2, 7]);
  model.purposeLegitimateInterests.set(options.purposeLegitimateInterests ?? []);
  model.vendorConsents.set([2, 8]);
  model.vendorsDisclosed.set(CHANNEL_VENDORS);
  return model;
}

/**
 * A GPP string (its header by the GPP library) whose tcfeuv2 section is the core library's segments
 * of `model` as they are, with no semantic pass: for content the GPP encoder refuses to write (a
 * global string) or corrects on its own (legitimate interest for purposes 3 to 6 dropped).
 */
const withRawSection = (model: TCModel) =>
  `${gppOfFields({}).split('~')[0]}~${[Segment.CORE, Segment.VENDORS_DISCLOSED]
    .map((segment) => SegmentEncoder.encode(model, segment))
    .join('.')}`;

/** The TC string as the SDK's tcf.js encodes it (IAB's core library), and the GPP string it makes. */
function compliant(): { tcString: string; gppString: string } {
  const tcString = TCString.encode(modelOf());
  const gpp = new GppModel();
  gpp.decodeSection('tcfeuv2', tcString);
  return { tcString, gppString: gpp.encode() };
}

/**
 * A decision, sent again as a client would while the service says its GPP checkers are busy (503
 * with Retry-After): on a loaded machine the checkers' first start can take longer than a string
 * may wait for one. Only the final answer is the test's.
 */
async function decide(on: ReadySite, overrides: Record<string, unknown>): Promise<TestResponse> {
  for (let attempt = 1; ; attempt++) {
    const res = await postPreferences(t, on.siteKey, preferencesBody(on, overrides));
    if (res.status !== 503 || attempt === 5) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

async function evidenceCount(on: ReadySite): Promise<number> {
  const res = await t.http.get(`/v1/evidence?channelId=${on.channelId}&limit=100`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data.length;
}

/** The 422's errors, and that nothing was stored. */
async function refused(res: Promise<TestResponse>, on: ReadySite = site, label = '') {
  const before = await evidenceCount(on);
  const answer = await res;
  expect(answer.status, `${label}: ${answer.text.slice(0, 300)}`).toBe(422);
  const problem = expectProblemShape(answer, 422, 'validation_failed');
  expect(await evidenceCount(on)).toBe(before);
  return problem.errors as Array<{ path: string; code?: string; message: string }>;
}

beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  const ready = await createReadySite(t, tenant.testKey, { gppCmpId: CMP_ID });
  const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
    key: tenant.testKey,
    body: { tcf: { cmpId: CMP_ID, vendorIds: CHANNEL_VENDORS, publisherCountryCode: 'FR' } },
  });
  expect(patched.status, patched.text).toBe(200);
  site = { ...ready, channel: patched.body.data, configVersion: patched.body.data.configVersion };
  plain = await createReadySite(t, tenant.testKey, { name: 'No TCF', gppCmpId: CMP_ID });
});
afterAll(() => t.close());

describe('the EU TCF section of a GPP string', () => {
  it('consenting vendors 1..9999 on a channel of five: 422 tc_vendor_not_selected, nothing stored', async () => {
    const gppString = gppOfFields({ VendorConsents: range(1, 9999) });
    expect(new GppModel(gppString).getFieldValue('tcfeuv2', 'VendorConsents')).toHaveLength(9999);
    const errors = await refused(decide(site, { gppString }));
    expect(errors).toEqual([
      {
        path: '/gppString',
        code: 'tc_vendor_not_selected',
        message: expect.stringMatching(/^its EU TCF section \(tcfeuv2\) /),
      },
    ]);
  });

  it('gets the rules a tcString gets, with the same codes and messages, at /gppString', async () => {
    const hostile: Record<string, Record<string, unknown>> = {
      'a vendor the channel did not choose, as a bit field': { VendorConsents: [2, 500] },
      'a consent for a vendor not disclosed': { VendorConsents: [2, 8], VendorsDisclosed: [2] },
      'an earlier policy version': { PolicyVersion: 4 },
      'another CMP id': { CmpId: 301 },
      'a vendor list version the service does not hold': { VendorListVersion: 99 },
    };
    const cases = [
      ...Object.entries(hostile).map(([name, fields]) => [name, gppOfFields(fields)] as const),
      ['not service-specific', withRawSection(modelOf({ isServiceSpecific: false }))] as const,
      [
        'legitimate interest for purpose 3',
        withRawSection(modelOf({ purposeLegitimateInterests: [2, 3] })),
      ] as const,
    ];
    const codes = new Set<string | undefined>();
    for (const [name, gppString] of cases) {
      const tcString = gppString.split('~')[1];
      const asTcString = await refused(decide(site, { tcString }), site, `${name} (tcString)`);
      const asGpp = await refused(decide(site, { gppString }), site, `${name} (gppString)`);
      expect(asTcString.length, name).toBeGreaterThan(0);
      for (const error of asGpp) codes.add(error.code);
      expect(asGpp, name).toEqual(
        asTcString.map((e) => ({
          ...e,
          path: '/gppString',
          message: `its EU TCF section (tcfeuv2) ${e.message}`,
        })),
      );
    }
    expect([...codes]).toEqual(
      expect.arrayContaining([
        'tc_vendor_not_selected',
        'tc_not_service_specific',
        'tc_purpose_li_forbidden',
        'tc_vendor_not_disclosed',
        'tc_policy_version',
      ]),
    );
  });

  it('a section the SDK would send is recorded, alone or beside the same tcString', async () => {
    const { tcString, gppString } = compliant();
    expect(gppString.split('~')[1]).toBe(tcString);
    for (const body of [{ gppString }, { gppString, tcString }]) {
      const subjectId = newSubjectId();
      const res = await decide(site, { subjectId, ...body });
      expect(res.status, res.text).toBe(201);
    }
  });

  it('on a channel without TCF settings, a GPP string with an EU TCF section is refused as a tcString would be', async () => {
    const { tcString, gppString } = compliant();
    const asTcString = await refused(decide(plain, { tcString }), plain);
    const asGpp = await refused(decide(plain, { gppString }), plain);
    expect(asTcString).toEqual([
      {
        path: '/tcString',
        message: `was sent, but configVersion ${plain.configVersion} of this channel has no TCF settings`,
      },
    ]);
    expect(asGpp).toEqual([
      {
        path: '/gppString',
        message: `carries an EU TCF section (tcfeuv2), but configVersion ${plain.configVersion} of this channel has no TCF settings`,
      },
    ]);
    // Its US sections are not TCF's business.
    const usnat = await decide(plain, { gppString: 'DBABLA~BVQqAAAAAgA.QA' });
    expect(usnat.status, usnat.text).toBe(201);
  });
});
