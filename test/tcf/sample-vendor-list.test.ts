import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { startTcfTestApp } from '../helpers/tcf.ts';

/**
 * The sample vendor list shipped in data/tcf-sample-gvl (TCF_GVL_URL=file:…): the TCF guide works
 * without a network on test channels, and a live channel never takes it.
 */
const SAMPLE_DIR = path.resolve(import.meta.dirname, '../../data/tcf-sample-gvl');
const settings = { cmpId: 300, vendorIds: [1, 2], publisherCountryCode: 'FR' };

describe('the sample vendor list', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    ({ t } = await startTcfTestApp({ env: { TCF_GVL_URL: `${pathToFileURL(SAMPLE_DIR).href}/` } }));
    tenant = await t.tenant();
  });
  afterAll(() => t.close());

  it('loads from the shipped directory in IAB’s format, its vendors named as samples', async () => {
    const res = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.vendorListVersion).toBe(1);
    const names: string[] = res.body.data.vendors.map((v: { name: string }) => v.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(/^Sample vendor \d+ \(not a real vendor\)$/);
  });

  it('is taken by a test channel', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Try TCF', tcf: settings },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.tcf.vendorIds).toEqual([1, 2]);
  });

  it('is refused to a live channel, saying why', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.liveKey,
      body: { name: 'Live TCF', tcf: settings },
    });
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('invalid_state');
    expect(res.body.detail).toContain('sample list');
    expect(res.body.detail).toContain('test channels only');
  });
});
