import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * Before the worker has stored any vendor list there is nothing to check a channel's TCF vendors
 * against. A file of its own: on PostgreSQL a test file's apps share one database, and the other
 * TCF files load a list first.
 */

const settings = { cmpId: 300, vendorIds: [1, 2, 8], publisherCountryCode: 'FR' };

describe('no vendor list yet', () => {
  let empty: TestApp;
  let emptyTenant: Tenant;
  beforeAll(async () => {
    ({ t: empty } = await startTcfTestApp({ load: false }));
    expect(await empty.app.services.tcf.latestVendorList(empty.store.db)).toBeNull();
    emptyTenant = await empty.tenant();
  });
  afterAll(() => empty.close());

  it('TCF settings are a 409 invalid_state until the mirror has stored a list; other channels are unaffected', async () => {
    const refused = await empty.http.post('/v1/channels', {
      key: emptyTenant.testKey,
      body: { name: 'Early', tcf: settings },
    });
    expectProblemShape(refused, 409, 'invalid_state');
    const plain = await empty.http.post('/v1/channels', {
      key: emptyTenant.testKey,
      body: { name: 'Plain' },
    });
    expect(plain.status).toBe(201);
    expectProblemShape(
      await empty.http.patch(`/v1/channels/${plain.body.data.id}`, {
        key: emptyTenant.testKey,
        body: { tcf: settings },
      }),
      409,
      'invalid_state',
    );
    await refreshVendorList(empty);
    const later = await empty.http.patch(`/v1/channels/${plain.body.data.id}`, {
      key: emptyTenant.testKey,
      body: { tcf: settings },
    });
    expect(later.status, later.text).toBe(200);
  });
});
