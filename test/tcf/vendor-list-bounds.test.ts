import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { buildVendorList, serveVendorList, type VendorListServer } from '../helpers/gvl.ts';
import { SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * A vendor list host that sends something other than a GVL v3 list, within the size and time
 * bounds (vendor-list-hostile.test.ts has those): a version a TC string cannot carry or one older
 * than the list held, nesting no real list has, a redirect to another host, and keys the format
 * does not have. Each is a failed fetch, counted in the mirror state and the failure metric, and
 * every channel keeps the last good version; unknown keys never reach a visitor or the API.
 */

let t: TestApp;
let gvl: VendorListServer;
let tenant: Tenant;
let channel: { id: string; siteKey: string };

beforeAll(async () => {
  ({ t, gvl } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  const res = await t.http.post('/v1/channels', {
    key: tenant.testKey,
    body: { name: 'News', tcf: { cmpId: 300, vendorIds: [2, 8, 32], publisherCountryCode: 'FR' } },
  });
  expect(res.status, res.text).toBe(201);
  channel = res.body.data;
  await t.http.post(`/v1/channels/${channel.id}/origins`, {
    key: tenant.testKey,
    body: { origin: SITE_ORIGIN },
  });
});
afterAll(() => t.close());

const tcf = () => t.app.services.tcf;

async function failureCount(): Promise<number> {
  const res = await t.http.get('/metrics');
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith('consent_service_tcf_vendor_list_fetch_failures_total{file="vendor_list"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** The vendor list version of the channel's current config (what its TC strings are made with). */
async function channelListVersion(): Promise<number> {
  const res = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
  const config = await t.http.get(
    `/v1/channels/${channel.id}/config-versions/${res.body.data.configVersion}`,
    {
      key: tenant.testKey,
    },
  );
  return config.body.data.config.tcf.vendorListVersion;
}

const slice = (version: number) =>
  t.http.get(`/v1/public/sites/${channel.siteKey}/tcf/vendor-list.json?version=${version}`, {
    headers: { origin: SITE_ORIGIN },
  });

/** The newest version the mirror holds. */
const held = async () => (await tcf().latestVendorList(t.store.db))!.vendorListVersion;

/**
 * Runs the mirror against what the host now sends and checks that it was a failed fetch, counted,
 * with the list and the channels left where they were; returns the stored error.
 */
async function expectRefused(): Promise<string> {
  const [failures, previous, kept] = [
    await failureCount(),
    await tcf().mirrorState(t.store.db),
    await held(),
  ];
  const state = await refreshVendorList(t);
  expect(state?.consecutiveFailures, state?.lastError ?? '').toBe((previous?.consecutiveFailures ?? 0) + 1);
  expect(await failureCount()).toBe(failures + 1);
  expect(await held()).toBe(kept);
  expect(await channelListVersion()).toBe(kept);
  // Both views keep answering with the last good version.
  const api = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
  expect(api.status, api.text).toBe(200);
  expect(api.body.data.vendorListVersion).toBe(kept);
  const visitor = await slice(kept);
  expect(visitor.status, visitor.text).toBe(200);
  return state?.lastError ?? '';
}

/** Publishes a good list of the next version: the mirror is healthy again, channels adopt it. */
async function recover() {
  const version = (await held()) + 1;
  gvl.heal();
  gvl.publish(buildVendorList({ version }));
  const state = await refreshVendorList(t);
  expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
  expect(await channelListVersion()).toBe(version);
}

describe('vendor list versions', () => {
  it.each([5000, 4096, 2 ** 31 - 1])(
    'refuses vendorListVersion %i, which a TC string cannot carry (12 bits); channels keep the last good one',
    async (version) => {
      gvl.publish(buildVendorList({ version, lastUpdated: '2026-06-01T00:00:00Z' }));
      expect(await expectRefused()).toMatch(/vendorListVersion .*4095/);
      expect(await tcf().vendorList(t.store.db, version)).toBeNull();
    },
  );

  it('takes the next good version after them: nothing is pinned', async () => {
    await recover();
  });

  it('refuses a version older than the newest held, and the same version again is no failure', async () => {
    const newest = await held();
    // 99: older than every version the test stored, so never stored itself.
    gvl.publish(buildVendorList({ version: 99 }));
    expect(await expectRefused()).toMatch(new RegExp(`vendorListVersion 99 is older than ${newest}`));
    expect(await tcf().vendorList(t.store.db, 99)).toBeNull();
    gvl.publish(buildVendorList({ version: newest }));
    expect(await refreshVendorList(t)).toMatchObject({ consecutiveFailures: 0, lastError: null });
  });

  it('refuses a tcfPolicyVersion a TC string cannot carry (6 bits)', async () => {
    gvl.publish(buildVendorList({ version: (await held()) + 1, tcfPolicyVersion: 64 }));
    expect(await expectRefused()).toMatch(/tcfPolicyVersion/);
  });
});

/** The list of `version` as JSON text, with `value` (raw JSON) as vendor 2's field `field`. */
function listWithRawField(version: number, field: string, value: string): string {
  const list = buildVendorList({ version });
  (list.vendors['2'] as Record<string, unknown>)[field] = '@RAW@';
  return JSON.stringify(list).replace('"@RAW@"', value);
}

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('nesting', () => {
  it.each([2600, 20_000, 1_000_000])(
    'refuses a vendor with a field nested %i levels deep, without a crash, and counts it',
    async (levels) => {
      gvl.publishText(listWithRawField((await held()) + 1, 'extra', nested(levels)));
      expect(await expectRefused()).toMatch(/nest/);
    },
  );

  it('refuses deep arrays the same way', async () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    gvl.publishText(listWithRawField((await held()) + 1, 'urls', deep));
    expect(await expectRefused()).toMatch(/nest/);
  });
});

describe('redirects', () => {
  it('refuses a redirect to another port of the same host, and never asks it', async () => {
    const other = await serveVendorList(buildVendorList({ version: (await held()) + 1 }));
    try {
      gvl.redirect(`${other.url}vendor-list.json`);
      expect(await expectRefused()).toMatch(/redirect/);
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('refuses a redirect to another scheme or host', async () => {
    gvl.publish(buildVendorList({ version: (await held()) + 1 }));
    gvl.redirect('https://127.0.0.1:1/vendor-list.json');
    expect(await expectRefused()).toMatch(/redirect/);
    gvl.redirect('http://localhost:1/vendor-list.json');
    expect(await expectRefused()).toMatch(/redirect/);
  });

  it('follows a redirect within the configured host', async () => {
    const version = (await held()) + 1;
    gvl.heal();
    gvl.publish(buildVendorList({ version }));
    gvl.redirect('/moved/vendor-list.json');
    const state = await refreshVendorList(t);
    expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
    expect(await channelListVersion()).toBe(version);
    gvl.heal();
  });
});

describe('keys the format does not have', () => {
  const HOSTILE = ['__proto__', 'constructor', 'prototype', 'unknownField'];
  let version: number;

  /** The next version, with hostile keys at every level, and every field a GVL v3 list may have. */
  function hostileList(): string {
    const list = buildVendorList({ version }) as Record<string, any>;
    list.standardTexts = { features: { '1': { text: 'Standard text of feature 1.' } } };
    list.unknownTop = { a: 1 };
    const vendor = list.vendors['2'];
    vendor.overflow = { httpGetLimit: 32 };
    vendor.dataRetention = { stdRetention: 30, purposes: { '2': 180 }, specialPurposes: { '1': 10 } };
    vendor.urls.push({
      langId: 'fr',
      privacy: 'https://fr.example/privacy',
      legIntClaim: 'https://fr.example/li',
    });
    vendor.cookieMaxAgeSeconds = null;
    vendor.unknownField = 'x';
    list.vendors['8'].urls = [
      { langId: 'en', privacy: 'javascript:alert(1)', legIntClaim: 'https://ok.example/li' },
    ];
    list.purposes['2'].consentable = true;
    list.purposes['2'].rightToObject = false;
    list.purposes['2'].unknownField = 'x';
    list.stacks['2'].unknownField = 'x';
    // Set on an object, `__proto__` would be its prototype and `constructor` would not be sent:
    // they are spliced into the text where these markers are, as a host sends them.
    for (const entry of [list, list.purposes['1'], vendor]) entry['@poison'] = '@poison';
    const poison =
      '"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":1';
    return JSON.stringify(list).replaceAll('"@poison":"@poison"', poison);
  }

  it('stores the list without them, keeping every field of the format', async () => {
    version = (await held()) + 1;
    gvl.publishText(hostileList());
    const state = await refreshVendorList(t);
    expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
    const stored = (await tcf().vendorList(t.store.db, version))!.body as Record<string, any>;
    expect(Object.keys(stored).sort()).toEqual(
      [
        'gvlSpecificationVersion',
        'vendorListVersion',
        'tcfPolicyVersion',
        'lastUpdated',
        'purposes',
        'specialPurposes',
        'features',
        'specialFeatures',
        'stacks',
        'dataCategories',
        'vendors',
        'standardTexts',
      ].sort(),
    );
    expect(stored.standardTexts).toEqual({ features: { '1': { text: 'Standard text of feature 1.' } } });
    const expected = buildVendorList({ version }).vendors['2'];
    expect(stored.vendors['2']).toEqual({
      ...expected,
      overflow: { httpGetLimit: 32 },
      dataRetention: { stdRetention: 30, purposes: { '2': 180 }, specialPurposes: { '1': 10 } },
      urls: [
        ...expected.urls,
        { langId: 'fr', privacy: 'https://fr.example/privacy', legIntClaim: 'https://fr.example/li' },
      ],
      cookieMaxAgeSeconds: null,
    });
    expect(stored.purposes['2']).toMatchObject({ consentable: true, rightToObject: false });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('the public slice and the API carry none of them, nor a link that is not http(s)', async () => {
    const res = await slice(version);
    expect(res.status, res.text).toBe(200);
    const api = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
    expect(api.status, api.text).toBe(200);
    expect(api.body.data.vendorListVersion).toBe(version);
    for (const text of [res.text, api.text]) {
      for (const key of HOSTILE) expect(text).not.toContain(`"${key}"`);
      expect(text).not.toContain('polluted');
      expect(text).not.toContain('javascript:');
      expect(text).toContain('https://ok.example/li');
    }
    expect(res.body.vendors['2'].dataRetention).toEqual({
      stdRetention: 30,
      purposes: { '2': 180 },
      specialPurposes: { '1': 10 },
    });
  });
});
