import { GVL, TCModel } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { buildVendorList, TEST_VENDORS } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { asTcfJsWrites, segmentEncoded, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * What IAB's validator, its reviewers and ad servers would still flag in a decision's TC string
 * (docs/guides/tcf.md, "What the service refuses"): tc_last_updated, tc_channel_mismatch,
 * tc_out_of_range and tc_signal_not_declared, each a 422 naming its rule, nothing recorded. Every
 * hostile string is assembled by IAB's SegmentEncoder segment by segment (core, DisclosedVendors,
 * Publisher TC, joined with '.'), never by TCString.encode, whose semantic pass would quietly make
 * it compliant.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;

const CMP_ID = 300;
/** A vendor that declares only special purposes: disclosed, but nothing can be consented to nor objected to. */
const SPECIAL_ONLY = { id: 40, name: 'Special Purposes Only Ltd', purposes: [], specialPurposes: [1, 2] };
const CHANNEL_VENDORS = [1, 2, 8, SPECIAL_ONLY.id];
const DAY = 86_400_000;

interface Strange {
  lastUpdated?: Date;
  created?: Date;
  purposeOneTreatment?: boolean;
  publisherCountryCode?: string;
  cmpVersion?: number;
  consentLanguage?: string;
  useNonStandardTexts?: boolean;
  purposeConsents?: number[];
  specialFeatureOptins?: number[];
  consentScreen?: number;
  vendorConsents?: number[];
  vendorLegitimateInterests?: number[];
}

/** A string as tcf.js would write it on this channel, with `strange` laid over it. */
function rawString(strange: Strange = {}): string {
  const list = buildVendorList({ version: 100, vendors: [...TEST_VENDORS, SPECIAL_ONLY] });
  const model = new TCModel(new GVL(list as never));
  model.cmpId = CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = true;
  model.publisherCountryCode = strange.publisherCountryCode ?? 'FR';
  model.purposeOneTreatment = strange.purposeOneTreatment ?? false;
  if (strange.cmpVersion !== undefined) model.cmpVersion = strange.cmpVersion;
  model.consentLanguage = strange.consentLanguage ?? 'EN';
  model.useNonStandardTexts = strange.useNonStandardTexts ?? false;
  model.consentScreen = strange.consentScreen ?? 1;
  model.purposeConsents.set(strange.purposeConsents ?? [1, 2]);
  model.specialFeatureOptins.set(strange.specialFeatureOptins ?? [1]);
  model.vendorConsents.set(strange.vendorConsents ?? [1, 2]);
  model.vendorLegitimateInterests.set(strange.vendorLegitimateInterests ?? [1, 8]);
  model.vendorsDisclosed.set(CHANNEL_VENDORS);
  if (strange.created) model.created = strange.created;
  model.lastUpdated = strange.lastUpdated ?? model.created;
  return segmentEncoded(model);
}

beforeAll(async () => {
  ({ t } = await startTcfTestApp({
    env: SITES_TEST_ENV,
    list: buildVendorList({ version: 100, vendors: [...TEST_VENDORS, SPECIAL_ONLY] }),
  }));
  tenant = await t.tenant();
  // Purposes necessary, analytics (translated into German) and marketing: languages de and en.
  const ready = await createReadySite(t, tenant.testKey, { name: 'News' });
  const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
    key: tenant.testKey,
    body: { tcf: { cmpId: CMP_ID, vendorIds: CHANNEL_VENDORS, publisherCountryCode: 'FR' } },
  });
  expect(patched.status, patched.text).toBe(200);
  site = { ...ready, channel: patched.body.data, configVersion: patched.body.data.configVersion };
});
afterAll(() => t.close());

const decide = (overrides: Record<string, unknown>) =>
  postPreferences(t, site.siteKey, preferencesBody(site, overrides));

/** Refused with exactly these rules, each problem saying what is wrong; nothing recorded. */
async function refusedWith(value: string, codes: string[], message?: RegExp) {
  const subjectId = newSubjectId();
  const problem = expectProblemShape(await decide({ subjectId, tcString: value }), 422, 'validation_failed');
  expect(problem.errors.map((e: { code?: string }) => e.code)).toEqual(codes);
  for (const error of problem.errors) expect(error.path).toBe('/tcString');
  if (message) expect(problem.errors[0].message).toMatch(message);
  const state = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${subjectId}`, {
    key: tenant.testKey,
  });
  expect(state.status).toBe(404);
}

const recorded = async (value: string) => {
  const res = await decide({ tcString: value });
  expect(res.status, res.text).toBe(201);
};

describe('what tcf.js writes on this channel', () => {
  it('is recorded: English, German (one of the channel’s languages), each consent screen', async () => {
    await recorded(rawString());
    await recorded(rawString({ consentLanguage: 'DE' }));
    for (const consentScreen of [0, 1, 2]) await recorded(rawString({ consentScreen }));
  });
});

describe('tc_last_updated', () => {
  it('LastUpdated other than Created, or more than 13 months ago', async () => {
    const today = new Date(Math.floor(t.clock.now().getTime() / DAY) * DAY);
    await refusedWith(
      rawString({ lastUpdated: new Date(today.getTime() - 3 * DAY) }),
      ['tc_last_updated'],
      /^was last updated on \d{4}-\d\d-\d\d but created on \d{4}-\d\d-\d\d: tcf\.js writes LastUpdated equal to Created$/,
    );
    // Fourteen months ago is also older than any consentMaxAgeDays (at most 395).
    const old = new Date(today.getTime() - 426 * DAY);
    await refusedWith(rawString({ created: old, lastUpdated: old }), [
      'tc_created_out_of_range',
      'tc_last_updated',
    ]);
  });
});

describe('tc_channel_mismatch', () => {
  it('purposeOneTreatment, publisherCC, cmpVersion or a language the layers do not offer', async () => {
    await refusedWith(
      rawString({ purposeOneTreatment: true }),
      ['tc_channel_mismatch'],
      /PurposeOneTreatment 1/,
    );
    await refusedWith(rawString({ publisherCountryCode: 'DE' }), ['tc_channel_mismatch'], /PublisherCC DE/);
    await refusedWith(
      rawString({ cmpVersion: 1 }),
      ['tc_channel_mismatch'],
      /CmpVersion 1 \(the channel's is \d+\)/,
    );
    await refusedWith(
      rawString({ consentLanguage: 'IT' }),
      ['tc_channel_mismatch'],
      /ConsentLanguage IT \(the layers offer DE, EN\)/,
    );
    // Several at once: one entry naming each, and how to fix them.
    await refusedWith(
      rawString({ publisherCountryCode: 'DE', cmpVersion: 1 }),
      ['tc_channel_mismatch'],
      /PublisherCC DE .*; CmpVersion 1 .*: encode it with the channel's TCF settings as its config serves them$/,
    );
  });
});

describe('tc_out_of_range', () => {
  it('UseNonStandardTexts, a purpose above the list’s, a special feature above 2, an unknown consent screen', async () => {
    await refusedWith(
      rawString({ useNonStandardTexts: true }),
      ['tc_out_of_range'],
      /UseNonStandardTexts is set/,
    );
    await refusedWith(
      rawString({ purposeConsents: [1, 2, 12] }),
      ['tc_out_of_range'],
      /purpose 12 \(the vendor list's highest is 11\)/,
    );
    await refusedWith(rawString({ specialFeatureOptins: [1, 3] }), ['tc_out_of_range'], /special feature 3/);
    await refusedWith(
      rawString({ consentScreen: 3 }),
      ['tc_out_of_range'],
      /ConsentScreen 3 \(the layers write 0, 1, 2\)/,
    );
  });
});

describe('tc_signal_not_declared', () => {
  it('consent or legitimate interest for a vendor that declares only special purposes', async () => {
    await refusedWith(
      rawString({ vendorConsents: [1, SPECIAL_ONLY.id] }),
      ['tc_signal_not_declared'],
      /^signals consent for vendor 40, which declares no purpose on consent nor special feature in the vendor list$/,
    );
    // TCF v2.4: such a vendor is disclosed with no legitimate-interest bit.
    await refusedWith(
      rawString({ vendorLegitimateInterests: [8, SPECIAL_ONLY.id] }),
      ['tc_signal_not_declared'],
      /legitimate interest for vendor 40, which declares no purpose that may rest on it/,
    );
  });

  it('consent and legitimate interest for vendors that declare them: recorded', async () => {
    // Vendor 1 asks consent for purposes 1–4; vendor 2 claims legitimate interest for 7, 8 and 9.
    await recorded(rawString({ vendorConsents: [1], vendorLegitimateInterests: [2] }));
  });
});
