import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';

/**
 * A nullable object (a channel's `tcf`) with wrong members says which members, at their paths,
 * rather than "matches none of the allowed forms": the console and API clients show each at its
 * field. A value of no allowed type at all is still listed once, at its own path.
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('validation errors inside a union', () => {
  it('name the members of a nullable object that are wrong', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Shop', tcf: { cmpId: 1, vendorIds: [1], publisherCountryCode: 'Germany' } },
    });
    expectProblemShape(res, 422, 'validation_failed');
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('/tcf/cmpId');
    expect(paths).toContain('/tcf/publisherCountryCode');
    expect(paths).not.toContain('/tcf');
  });

  it('list a value of no allowed type once, at its own path', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Shop', tcf: 'yes' },
    });
    expectProblemShape(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([{ path: '/tcf', message: 'matches none of the allowed forms' }]);
    const gpp = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Shop', gppCmpId: 'x' },
    });
    expect(gpp.body.errors).toEqual([{ path: '/gppCmpId', message: 'matches none of the allowed forms' }]);
  });
});
