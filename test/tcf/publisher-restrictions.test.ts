import { GVL, PurposeRestriction, RestrictionType, TCModel, TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
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
 * docs/guides/tcf.md, "Publisher restrictions": a channel's
 * `tcf.publisherRestrictions` are validated when written, returned as written, and a decision's TC
 * string whose restrictions differ from them is refused with 422 `tc_publisher_restrictions`.
 * Strings are made by IAB's own encoder (@iabtechlabtcf/core).
 */

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;

const CMP_ID = 300;
const CHANNEL_VENDORS = [1, 2, 8, 21];
/** On the tests' vendor list: vendor 2 declares purpose 7 flexible on LI; 21 and 8 declare 7 and 2. */
const RESTRICTIONS = [
  { purposeId: 7, type: 'require_consent', vendorIds: [2] },
  { purposeId: 2, type: 'not_allowed', vendorIds: [8, 21] },
];

/** A string on the tests' vendor list (version 100) carrying the given restrictions. */
function encoded(restrictions: Array<[vendorId: number, purposeId: number, type: RestrictionType]>): string {
  const model = new TCModel(new GVL(buildVendorList({ version: 100 }) as never));
  model.cmpId = CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'FR';
  model.consentScreen = 1;
  model.purposeConsents.set([1, 2, 7]);
  model.vendorConsents.set([2, 8]);
  model.vendorsDisclosed.set(CHANNEL_VENDORS);
  for (const [vendorId, purposeId, type] of restrictions) {
    model.publisherRestrictions.add(vendorId, new PurposeRestriction(purposeId, type));
  }
  return TCString.encode(model);
}

const patchTcf = (tcf: Record<string, unknown>) =>
  t.http.patch(`/v1/channels/${site.channelId}`, {
    key: tenant.testKey,
    body: { tcf: { cmpId: CMP_ID, vendorIds: CHANNEL_VENDORS, publisherCountryCode: 'FR', ...tcf } },
  });

beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey, { name: 'News' });
});
afterAll(() => t.close());

describe('channel tcf.publisherRestrictions', () => {
  it('defaults to [] and is returned as written (vendor ids sorted)', async () => {
    const plain = await patchTcf({});
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body.data.tcf.publisherRestrictions).toEqual([]);
    const res = await patchTcf({ publisherRestrictions: RESTRICTIONS });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.tcf.publisherRestrictions).toEqual([
      { purposeId: 7, type: 'require_consent', vendorIds: [2] },
      { purposeId: 2, type: 'not_allowed', vendorIds: [8, 21] },
    ]);
    const read = await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey });
    expect(read.body.data.tcf.publisherRestrictions).toEqual(res.body.data.tcf.publisherRestrictions);
  });

  it('refuses a vendor not chosen, LI for a consent-only purpose, a vendor restricted twice, an unknown type', async () => {
    const problem = expectProblemShape(
      await patchTcf({
        publisherRestrictions: [
          { purposeId: 2, type: 'not_allowed', vendorIds: [32] },
          { purposeId: 3, type: 'require_li', vendorIds: [1] },
          { purposeId: 2, type: 'require_consent', vendorIds: [1, 8] },
          { purposeId: 2, type: 'require_li', vendorIds: [8] },
        ],
      }),
      422,
      'validation_failed',
    );
    expect(problem.errors.map((e: { path: string }) => e.path)).toEqual([
      '/tcf/publisherRestrictions/0/vendorIds/0',
      '/tcf/publisherRestrictions/1/type',
      '/tcf/publisherRestrictions/3/vendorIds/0',
    ]);
    // Settings that pass their own rules are then checked against the vendor list: vendor 21
    // does not declare purpose 7 as flexible, so no string could carry the restriction.
    const unapplicable = expectProblemShape(
      await patchTcf({ publisherRestrictions: [{ purposeId: 7, type: 'require_consent', vendorIds: [21] }] }),
      422,
      'validation_failed',
    );
    expect(unapplicable.errors.map((e: { path: string }) => e.path)).toEqual([
      '/tcf/publisherRestrictions/0/vendorIds/0',
    ]);
    expectProblemShape(
      await patchTcf({ publisherRestrictions: [{ purposeId: 2, type: 'forbid', vendorIds: [1] }] }),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await patchTcf({ publisherRestrictions: [{ purposeId: 12, type: 'not_allowed', vendorIds: [1] }] }),
      422,
      'validation_failed',
    );
  });
});

describe('a decision’s TC string against the channel’s restrictions', () => {
  beforeAll(async () => {
    const res = await patchTcf({ publisherRestrictions: RESTRICTIONS });
    expect(res.status, res.text).toBe(200);
    site = { ...site, channel: res.body.data, configVersion: res.body.data.configVersion };
  });
  const decide = (tcString: string) => postPreferences(t, site.siteKey, preferencesBody(site, { tcString }));
  const matching: Array<[number, number, RestrictionType]> = [
    [2, 7, RestrictionType.REQUIRE_CONSENT],
    [8, 2, RestrictionType.NOT_ALLOWED],
    [21, 2, RestrictionType.NOT_ALLOWED],
  ];

  it('records a string carrying exactly the channel’s restrictions (decoded by IAB’s library)', async () => {
    const value = encoded(matching);
    expect(TCString.decode(value).publisherRestrictions.getRestrictionType(2, 7)).toBe(
      RestrictionType.REQUIRE_CONSENT,
    );
    const res = await decide(value);
    expect(res.status, res.text).toBe(201);
  });

  it('refuses a string without them, with one missing, one added, or one of another type', async () => {
    for (const restrictions of [
      [],
      matching.slice(0, 2),
      [...matching, [1, 10, RestrictionType.NOT_ALLOWED] as [number, number, RestrictionType]],
      [
        matching[0],
        matching[1],
        [21, 2, RestrictionType.REQUIRE_CONSENT] as [number, number, RestrictionType],
      ],
    ] as Array<Array<[number, number, RestrictionType]>>) {
      const problem = expectProblemShape(await decide(encoded(restrictions)), 422, 'validation_failed');
      expect(problem.errors.map((e: { code?: string }) => e.code)).toEqual(['tc_publisher_restrictions']);
    }
  });
});
