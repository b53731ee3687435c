import { GVL, Segment, SegmentEncoder, TCModel, TCString } from '@iabtechlabtcf/core';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { LOCAL_WEBHOOKS_ENV, subscribeWebhook } from '../helpers/webhooks.ts';

/**
 * docs/guides/tcf.md, "What the service refuses": the
 * decision's TC string is held to what the TCF policy and the channel allow, each refusal a 422
 * naming its rule in `errors[].code`, and nothing stored or sent for a string the channel's vendors
 * cannot carry. Every string is made by IAB's own encoder (@iabtechlabtcf/core): TCString.encode as
 * tcf.js does, or, for what its semantic pre-pass would silently drop (legitimate interest for
 * purposes 3–6, vendors outside the list), its SegmentEncoder segment by segment.
 */

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;

const CMP_ID = 300;
/** The channel's choice: four of the list's five vendors (32 is in the list, not chosen). */
const CHANNEL_VENDORS = [1, 2, 8, 21];
const MAX_AGE_DAYS = 30;
const DAY = 86_400_000;

interface Choice {
  isServiceSpecific?: boolean;
  listPolicyVersion?: number;
  purposeConsents?: number[];
  purposeLegitimateInterests?: number[];
  vendorConsents?: number[];
  vendorLegitimateInterests?: number[];
  vendorsDisclosed?: number[];
  customConsents?: number[];
  numCustomPurposes?: number;
  created?: Date;
  consentScreen?: number;
}

/** The library's model of a choice on the tests' vendor list (version 100). */
function modelOf(choice: Choice = {}): TCModel {
  const list = buildVendorList({ version: 100, tcfPolicyVersion: choice.listPolicyVersion ?? 5 });
  const model = new TCModel(new GVL(list as never));
  model.cmpId = CMP_ID;
  asTcfJsWrites(model);
  model.isServiceSpecific = choice.isServiceSpecific ?? true;
  model.publisherCountryCode = 'FR';
  model.consentScreen = choice.consentScreen ?? 1;
  model.purposeConsents.set(choice.purposeConsents ?? [1, 2, 7]);
  model.purposeLegitimateInterests.set(choice.purposeLegitimateInterests ?? [2, 7]);
  model.vendorConsents.set(choice.vendorConsents ?? [2, 8]);
  model.vendorLegitimateInterests.set(choice.vendorLegitimateInterests ?? [1]);
  model.specialFeatureOptins.set([1]);
  model.vendorsDisclosed.set(choice.vendorsDisclosed ?? CHANNEL_VENDORS);
  if (choice.customConsents) {
    model.numCustomPurposes = choice.numCustomPurposes ?? Math.max(3, ...choice.customConsents);
    model.publisherCustomConsents.set(choice.customConsents);
  }
  if (choice.created) {
    model.created = choice.created;
    model.lastUpdated = choice.created;
  }
  return model;
}

/** As tcf.js encodes: TCString.encode (the library's semantic pass, then every segment). */
const encoded = (choice: Choice = {}) => TCString.encode(modelOf(choice));

/** The library's segment encoder alone: what its semantic pass would have dropped stays in. */
const rawEncoded = (
  choice: Choice,
  segments = [Segment.CORE, Segment.VENDORS_DISCLOSED, Segment.PUBLISHER_TC],
) => segments.map((segment) => SegmentEncoder.encode(modelOf(choice), segment)).join('.');

beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: { ...SITES_TEST_ENV, ...LOCAL_WEBHOOKS_ENV } }));
  tenant = await t.tenant();
  const ready = await createReadySite(t, tenant.testKey, { name: 'News' });
  const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
    key: tenant.testKey,
    body: {
      consentMaxAgeDays: MAX_AGE_DAYS,
      tcf: { cmpId: CMP_ID, vendorIds: CHANNEL_VENDORS, publisherCountryCode: 'FR' },
    },
  });
  expect(patched.status, patched.text).toBe(200);
  site = { ...ready, channel: patched.body.data, configVersion: patched.body.data.configVersion };
  await subscribeWebhook(t, tenant.testKey, ['consent.recorded']);
});
afterAll(() => t.close());

const decide = (overrides: Record<string, unknown>) =>
  postPreferences(t, site.siteKey, preferencesBody(site, overrides));

/** The consent.recorded payloads in the outbox, by event id. */
async function outbox(): Promise<Map<string, Record<string, unknown>>> {
  const { rows } = (await rawSql(t.store).execute(
    sql`select data from webhook_events where organization_id = ${tenant.organizationId} and type = 'consent.recorded'`,
  )) as unknown as { rows: Array<{ data: Record<string, unknown> }> };
  return new Map(rows.map((row) => [row.data.id as string, row.data]));
}

async function evidenceOf(subjectId: string) {
  const res = await t.http.get(`/v1/evidence?channelId=${site.channelId}&subjectId=${subjectId}`, {
    key: tenant.testKey,
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Record<string, unknown>[];
}

/** The string is refused with exactly these rules, and nothing is stored or sent. */
async function refusedWith(value: string, codes: string[], overrides: Record<string, unknown> = {}) {
  const before = (await outbox()).size;
  const subjectId = newSubjectId();
  const problem = expectProblemShape(
    await decide({ subjectId, tcString: value, ...overrides }),
    422,
    'validation_failed',
  );
  expect(problem.errors.map((e: { code?: string }) => e.code)).toEqual(codes);
  for (const error of problem.errors) {
    expect(error).toEqual({ path: '/tcString', code: expect.any(String), message: expect.any(String) });
  }
  expect(await evidenceOf(subjectId)).toEqual([]);
  expect((await outbox()).size).toBe(before);
  return problem;
}

describe('a 51-character string naming vendors 1..19,999', () => {
  it('is refused before anything is stored or sent: no 130 KB event, no 130 KB webhook payload', async () => {
    const range = Array.from({ length: 19_999 }, (_, i) => i + 1);
    const value = rawEncoded({ vendorConsents: range, vendorsDisclosed: range }, [Segment.CORE]);
    expect(value.length).toBeLessThanOrEqual(60);
    expect(TCString.decode(value).vendorConsents.size).toBe(19_999);
    const problem = await refusedWith(value, ['tc_vendor_not_selected']);
    // The answer names the rule, not 19,999 ids.
    expect(JSON.stringify(problem).length).toBeLessThan(2_000);
  });

  it('a string of the channel’s vendors: the stored event and the webhook payload stay small', async () => {
    const subjectId = newSubjectId();
    const res = await decide({ subjectId, tcString: encoded() });
    expect(res.status, res.text).toBe(201);
    const [event] = await evidenceOf(subjectId);
    const payload = (await outbox()).get(res.body.data.id);
    expect(payload).toBeDefined();
    expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThan(3_000);
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThan(3_000);
  });
});

describe('what the TCF policy and the channel forbid: 422 naming the rule', () => {
  it('tc_not_service_specific: a global-scope string', async () => {
    // IAB's encoder writes no Publisher TC segment in a global-scope string: the channel's own
    // optional purposes are then carried nowhere either.
    await refusedWith(encoded({ isServiceSpecific: false }), [
      'tc_not_service_specific',
      'tc_contradicts_decisions',
    ]);
  });

  it('tc_policy_version: older than the policy of the vendor list it names', async () => {
    // Version 100 on the service says tcfPolicyVersion 5; this string says 4 for it.
    await refusedWith(encoded({ listPolicyVersion: 4 }), ['tc_policy_version']);
    await refusedWith(encoded({ listPolicyVersion: 6 }), ['tc_policy_version']);
  });

  it('tc_purpose_li_forbidden: legitimate interest for purposes 3–6 (or 1)', async () => {
    await refusedWith(rawEncoded({ purposeLegitimateInterests: [2, 3] }), ['tc_purpose_li_forbidden']);
    await refusedWith(rawEncoded({ purposeLegitimateInterests: [6] }), ['tc_purpose_li_forbidden']);
    await refusedWith(rawEncoded({ purposeLegitimateInterests: [1, 7] }), ['tc_purpose_li_forbidden']);
  });

  it('tc_vendor_not_selected: a vendor of the list the channel did not choose, or one not in the list', async () => {
    await refusedWith(encoded({ vendorConsents: [2, 32], vendorsDisclosed: [...CHANNEL_VENDORS, 32] }), [
      'tc_vendor_not_selected',
    ]);
    await refusedWith(
      rawEncoded({ vendorLegitimateInterests: [1, 999], vendorsDisclosed: [...CHANNEL_VENDORS, 999] }),
      ['tc_vendor_not_selected'],
    );
    // Disclosing a vendor the channel never showed is as wrong as consenting to it.
    await refusedWith(encoded({ vendorsDisclosed: [...CHANNEL_VENDORS, 32] }), ['tc_vendor_not_selected']);
  });

  it('tc_vendor_not_disclosed: consent or legitimate interest for a vendor the DisclosedVendors segment lacks', async () => {
    await refusedWith(encoded({ vendorConsents: [2, 8], vendorsDisclosed: [1, 2] }), [
      'tc_vendor_not_disclosed',
    ]);
    await refusedWith(encoded({ vendorsDisclosed: [2, 8, 21] }), ['tc_vendor_not_disclosed']);
    // No DisclosedVendors segment at all: nothing is disclosed (and no Publisher TC segment).
    await refusedWith(rawEncoded({}, [Segment.CORE]), [
      'tc_vendor_not_disclosed',
      'tc_contradicts_decisions',
    ]);
  });

  it('tc_created_out_of_range: more than a day ahead, or older than the channel’s consentMaxAgeDays', async () => {
    const today = new Date(Math.floor(t.clock.now().getTime() / DAY) * DAY);
    for (const created of [
      new Date(today.getTime() + 2 * DAY),
      new Date(today.getTime() + 3 * 365 * DAY),
      new Date(today.getTime() - (MAX_AGE_DAYS + 1) * DAY),
    ]) {
      await refusedWith(encoded({ created }), ['tc_created_out_of_range']);
    }
    // Four years ago is also a LastUpdated more than 13 months old.
    await refusedWith(encoded({ created: new Date(today.getTime() - 4 * 365 * DAY) }), [
      'tc_created_out_of_range',
      'tc_last_updated',
    ]);
    // Within the bounds: the channel's age to the day, and the next day (clocks differ).
    for (const created of [new Date(today.getTime() - MAX_AGE_DAYS * DAY), new Date(today.getTime() + DAY)]) {
      const res = await decide({ tcString: encoded({ created }) });
      expect(res.status, res.text).toBe(201);
    }
  });

  it('tc_contradicts_decisions: a custom purpose granted in the Publisher TC segment that decisions deny', async () => {
    // The notice's purposes in order: necessary (1), analytics (2), marketing (3); marketing is denied.
    await refusedWith(encoded({ customConsents: [2, 3] }), ['tc_contradicts_decisions']);
    // A custom purpose the notice does not have.
    await refusedWith(encoded({ customConsents: [1, 4] }), ['tc_contradicts_decisions']);
    // Granted where the decisions grant: recorded.
    const res = await decide({ tcString: encoded({ customConsents: [1, 2] }) });
    expect(res.status, res.text).toBe(201);
    // Decisions that deny analytics turn the same string into a contradiction.
    await refusedWith(encoded({ customConsents: [1, 2] }), ['tc_contradicts_decisions'], {
      decisions: { analytics: 'denied', marketing: 'denied' },
    });
  });

  it('several rules at once: each named once', async () => {
    await refusedWith(
      rawEncoded({ isServiceSpecific: false, purposeLegitimateInterests: [4], vendorsDisclosed: [1] }),
      ['tc_not_service_specific', 'tc_purpose_li_forbidden', 'tc_vendor_not_disclosed'],
    );
  });
});

describe('a valid string: the evidence keeps the decoded summary', () => {
  it('legitimate interests, DisclosedVendors, the policy version and the consent screen, on reads and the webhook', async () => {
    const subjectId = newSubjectId();
    const value = encoded({ consentScreen: 2 });
    const res = await decide({ subjectId, tcString: value });
    expect(res.status, res.text).toBe(201);
    const summary = {
      vendorListVersion: 100,
      purposeConsents: [1, 2, 7],
      vendorConsents: [2, 8],
      specialFeatureOptins: [1],
      purposeLegitimateInterests: [2, 7],
      vendorLegitimateInterests: [1],
      vendorsDisclosed: CHANNEL_VENDORS,
      policyVersion: 5,
      consentScreen: 2,
      // The Publisher TC segment tcf.js writes, no custom purpose granted.
      publisherCustomConsents: [],
    };
    const [event] = await evidenceOf(subjectId);
    expect(event.tcString).toBe(value);
    expect(event.tcf).toEqual(summary);
    const one = await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.testKey });
    expect(one.body.data.tcf).toEqual(summary);
    expect((await outbox()).get(res.body.data.id)?.tcf).toEqual(summary);
  });
});
