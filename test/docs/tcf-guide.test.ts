import fs from 'node:fs';
import path from 'node:path';
import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AC_RULES } from '../../src/modules/tcf/additional-consent/additional-consent.service.ts';
import { TCF_RELEASE } from '../../src/modules/tcf/settings/tcf-settings.service.ts';
import { TC_STRING_RULES } from '../../src/modules/tcf/tc-strings/tc-string.schemas.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { buildVendorList, TEST_VENDORS, type VendorListServer } from '../helpers/gvl.ts';
import { createReadySite, type ReadySite } from '../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

// "Run as an IAB TCF CMP" promises calls and code that work: its examples are taken from the guide's
// text and run against the real service (guides.test.ts checks that its paths exist; this checks
// what they answer), so a renamed field or a changed rule fails here before it misleads an operator.

const GUIDE = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/guides/tcf.md'), 'utf8');
const CHANGELOG = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/tcf-changelog.md'), 'utf8');

describe('the TCF changelog', () => {
  it('lists every release, newest first, the newest being the service’s TCF_RELEASE', () => {
    const releases = [...CHANGELOG.matchAll(/^## Release (\d+)$/gm)].map((m) => Number(m[1]));
    expect(releases[0]).toBe(TCF_RELEASE);
    expect(releases).toEqual(Array.from({ length: TCF_RELEASE }, (_, i) => TCF_RELEASE - i));
  });
});

/** The JSON after `-d '` in the guide's curl that sends `method` to `pathEnd`. */
function curlBody(method: string, pathEnd: string): Record<string, unknown> {
  const text = GUIDE.replace(/\\\n/g, ' ');
  const curl = text
    .split('```')
    .flatMap((block) => block.split(/\n(?=curl )/))
    .find((c) => c.includes(`-X ${method}`) && c.includes(pathEnd));
  const json = curl?.match(/-d '([\s\S]*?)'/)?.[1];
  if (!json) throw new Error(`no ${method} …${pathEnd} with a body in the guide`);
  return JSON.parse(json);
}

/** The guide's fenced block whose text includes `marker`, without its opening and closing lines. */
function codeBlock(marker: string): string {
  const block = [...GUIDE.matchAll(/```\w*\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .find((b) => b.includes(marker));
  if (!block) throw new Error(`no code block with ${marker} in the guide`);
  return block;
}

describe('guide "Run as an IAB TCF CMP"', () => {
  let t: TestApp;
  let gvl: VendorListServer;
  let tenant: Tenant;
  let site: ReadySite;
  let body: { tcf: Record<string, unknown> };
  beforeAll(async () => {
    ({ t, gvl } = await startTcfTestApp({ load: false }));
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey);
    body = curlBody('PATCH', '/v1/channels/$CH') as { tcf: Record<string, unknown> };
  });
  afterAll(() => t?.close());

  const patch = (tcf: unknown) =>
    t.http.patch(`/v1/channels/${site.channelId}`, { key: tenant.testKey, body: { tcf } });

  it('a channel cannot take vendors before the first vendor list: 409 invalid_state', async () => {
    const res = await patch(body.tcf);
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('invalid_state');
  });

  it('the search answers with the fields the guide names, vendors sorted by id', async () => {
    await refreshVendorList(t);
    const res = await t.http.get('/v1/tcf/vendor-list?q=trade', { key: tenant.testKey });
    expect(res.status, res.text).toBe(200);
    for (const field of [
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
    ]) {
      expect(GUIDE).toContain(`\`${field}\``);
      expect(res.body.data, field).toHaveProperty(field);
    }
    expect(res.body.data.vendors.map((v: { name: string }) => v.name)).toEqual(['The Trade Desk']);
    const all = (await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey })).body.data;
    expect(all.vendors.map((v: { id: number }) => v.id)).toEqual([1, 2, 8, 21, 32]);
    for (const field of ['purposes', 'legIntPurposes', 'flexiblePurposes']) {
      expect(GUIDE).toContain(`\`${field}\``);
      expect(all.vendors[0]).toHaveProperty(field);
    }
  });

  it('the guide’s PATCH sets tcf as written; the rules it states are the API’s', async () => {
    const res = await patch(body.tcf);
    expect(res.status, res.text).toBe(200);
    // cmpVersion left out, as in the guide: null, the service's TCF release; no restrictions: [].
    expect(body.tcf).not.toHaveProperty('cmpVersion');
    expect(res.body.data.tcf).toEqual({
      ...body.tcf,
      cmpVersion: null,
      publisherRestrictions: [],
      googleAdditionalConsent: null,
      unknownRegion: 'gdpr',
    });

    // cmpId 2–4095; vendorIds 1–1000 of them; two letters of country.
    for (const bad of [{ cmpId: 1 }, { cmpId: 4096 }, { vendorIds: [] }, { publisherCountryCode: 'FRA' }]) {
      const refused = await patch({ ...body.tcf, ...bad });
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(refused.body.code).toBe('validation_failed');
    }
    const tooMany = Array.from({ length: 1001 }, (_, i) => i + 1);
    expect((await patch({ ...body.tcf, vendorIds: tooMany })).status).toBe(422);

    // The guide's example problem is the API's answer, word for word where it matters.
    const example = JSON.parse(codeBlock('"code": "validation_failed"'));
    const unknown = await patch({ ...body.tcf, vendorIds: [8, 21, 999] });
    expect(unknown.status, unknown.text).toBe(422);
    expect({ detail: unknown.body.detail, errors: unknown.body.errors }).toEqual({
      detail: example.detail,
      errors: example.errors,
    });

    // One error per vendor the list does not have, or has deleted.
    gvl.publish(
      buildVendorList({
        version: 101,
        vendors: [
          { id: 8, name: 'Emerse Sverige AB' },
          { id: 21, name: 'The Trade Desk' },
          { id: 32, name: 'Xandr, Inc.', deletedDate: '2026-02-01T00:00:00Z' },
        ],
      }),
    );
    await refreshVendorList(t);
    const refused = await patch({ ...body.tcf, vendorIds: [8, 32, 999] });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe('validation_failed');
    const said = JSON.stringify(refused.body.errors);
    expect(refused.body.errors).toHaveLength(2);
    expect(said).toContain('32');
    expect(said).toContain('999');

    // null turns TCF off.
    const off = await patch(null);
    expect(off.status, off.text).toBe(200);
    expect(off.body.data.tcf).toBeNull();
  });

  it('the evidence and consent state fields the guide names are the API’s', async () => {
    const spec = (await t.http.get('/v1/openapi.json')).body;
    const resolve = (schema: any): any =>
      schema?.$ref ? resolve(spec.components.schemas[schema.$ref.split('/').pop()]) : schema;
    const dataOf = (pattern: RegExp) => {
      const path = Object.keys(spec.paths).find((p) => pattern.test(p));
      expect(path, String(pattern)).toBeDefined();
      const body = resolve(spec.paths[path!].get.responses['200'].content['application/json'].schema);
      return resolve(body.properties.data);
    };
    const event = dataOf(/^\/v1\/evidence\/\{[^}]+\}$/);
    expect(Object.keys(event.properties)).toEqual(expect.arrayContaining(['tcString', 'tcf']));
    const decoded = Object.keys(resolve(event.properties.tcf).properties).sort();
    expect(decoded).toEqual([
      'addtlConsent',
      'consentScreen',
      'policyVersion',
      'publisherCustomConsents',
      'purposeConsents',
      'purposeLegitimateInterests',
      'specialFeatureOptins',
      'vendorConsents',
      'vendorLegitimateInterests',
      'vendorListVersion',
      'vendorsDisclosed',
    ]);
    for (const field of decoded) expect(GUIDE).toContain(`\`${field}\``);
    // Every rule a refused TC string can name is in the guide and in the preferences route's 422.
    const preferences = Object.entries(spec.paths).find(([p]) => p.endsWith('/preferences'))?.[1] as any;
    const refusal = preferences.post.responses['422'];
    for (const rule of [...TC_STRING_RULES, ...AC_RULES]) {
      expect(GUIDE, rule).toContain(`\`${rule}\``);
      expect(refusal.description, rule).toContain(`\`${rule}\``);
    }
    expect(Object.keys(dataOf(/^\/v1\/consent-state$/).properties)).toContain('tcString');
  });

  it('the metrics the guide names exist', async () => {
    const res = await t.http.get('/metrics');
    expect(res.status).toBe(200);
    for (const name of GUIDE.match(/consent_service_tcf_\w+/g) ?? []) {
      expect(res.text, name).toContain(`# TYPE ${name} `);
    }
    expect(GUIDE.match(/consent_service_tcf_\w+/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('the Node sample decodes a string built with @iabtechlabtcf/core', () => {
    const sample = codeBlock('TCString.decode');
    expect(sample).toContain("import { TCString } from '@iabtechlabtcf/core';");
    // Google's vendor id, as the guide names it, in a list of the tests'.
    const google = {
      id: 755,
      name: 'Google Advertising Products',
      purposes: [1, 2, 3, 4],
      legIntPurposes: [7],
    };
    const model = new TCModel(new GVL(buildVendorList({ vendors: [...TEST_VENDORS, google] }) as never));
    model.cmpId = 300;
    model.cmpVersion = 1;
    model.purposeConsents.set([1, 2]);
    model.vendorConsents.set([755]);
    const tcString = TCString.encode(model);
    const lines: unknown[][] = [];
    const run = new Function('TCString', 'tcString', 'console', sample.replace(/^import .*$/m, ''));
    run(TCString, tcString, { log: (...args: unknown[]) => lines.push(args) });
    expect(lines).toEqual([
      [300, 100, model.policyVersion],
      ['purpose 1 consent:', true],
      ['vendor 755 consent:', true],
      ['vendor 755 legitimate interest:', false],
    ]);
  });
});
