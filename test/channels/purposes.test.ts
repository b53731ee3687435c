import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  auditActions,
  createChannel,
  createPurpose,
  createTechnology,
  startChannelsApp,
  walkPages,
} from './channel-helpers.ts';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startChannelsApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('POST /v1/channels/:id/purposes', () => {
  it('creates a purpose with the create-body defaults and bumps configVersion', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const res = await t.http.post(`/v1/channels/${channel.id}/purposes`, {
      key: tenant.testKey,
      body: { key: 'analytics', name: 'Analytics' },
    });
    expect(res.status).toBe(201);
    const purpose = res.body.data;
    expect(res.headers.get('location')).toBe(`/v1/channels/${channel.id}/purposes/${purpose.id}`);
    expect(purpose).toEqual({
      id: expect.stringMatching(/^pur_[0-9A-Za-z]{22}$/),
      channelId: channel.id,
      key: 'analytics',
      name: 'Analytics',
      description: null,
      legalBasis: 'consent',
      required: false,
      status: 'active',
      translations: {},
      consentModeSignals: [],
      gpcOptOut: false,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: purpose.createdAt,
    });
    const after = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(after.body.data.configVersion).toBe(2);
    expect(await auditActions(t, tenant.testKey, purpose.id)).toEqual(['purpose.created']);
  });

  it('takes every optional field; translations are stored with every member', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const purpose = await createPurpose(t, tenant.testKey, channel.id, {
      key: 'ads_2',
      name: 'Advertising',
      description: 'Personalised ads',
      legalBasis: 'legitimate_interest',
      required: false,
      translations: { fr: { name: 'Publicité', description: 'Pubs' }, 'pt-BR': { name: 'Publicidade' } },
      consentModeSignals: ['ad_storage', 'ad_user_data', 'ad_personalization'],
      gpcOptOut: true,
    });
    expect(purpose).toMatchObject({
      key: 'ads_2',
      description: 'Personalised ads',
      legalBasis: 'legitimate_interest',
      translations: {
        fr: { name: 'Publicité', description: 'Pubs' },
        'pt-BR': { name: 'Publicidade', description: null },
      },
      consentModeSignals: ['ad_storage', 'ad_user_data', 'ad_personalization'],
      gpcOptOut: true,
    });
  });

  it('rejects bad fields with 422 validation_failed and the path', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x' }, '/key'],
      [{ key: 'a' }, '/name'],
      [{ key: 'Analytics', name: 'x' }, '/key'],
      [{ key: '1abc', name: 'x' }, '/key'],
      [{ key: 'a-b', name: 'x' }, '/key'],
      [{ key: `a${'b'.repeat(40)}`, name: 'x' }, '/key'],
      [{ key: 'a', name: 'x', legalBasis: 'contract' }, '/legalBasis'],
      [{ key: 'a', name: 'x', required: 'yes' }, '/required'],
      [{ key: 'a', name: 'x', consentModeSignals: ['ad_storage', 'cookies'] }, '/consentModeSignals/1'],
      [{ key: 'a', name: 'x', consentModeSignals: ['ad_storage', 'ad_storage'] }, '/consentModeSignals'],
      [{ key: 'a', name: 'x', translations: { english: { name: 'x' } } }, '/translations/english'],
      [{ key: 'a', name: 'x', translations: { fr: { description: 'x' } } }, '/translations/fr/name'],
      [{ key: 'a', name: 'x', translations: { fr: { name: 'x', extra: 1 } } }, '/translations/fr/extra'],
      [{ key: 'a', name: 'x', gpcOptOut: 1 }, '/gpcOptOut'],
      [{ key: 'a', name: 'x', required: true, gpcOptOut: true }, '/gpcOptOut'],
      [{ key: 'a', name: 'x', status: 'archived' }, '/status'],
    ];
    for (const [body, path] of bad) {
      const res = await t.http.post(`/v1/channels/${channel.id}/purposes`, { key: tenant.testKey, body });
      const problem = expectProblemShape(res, 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body)).toBe(path);
    }
    const after = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(after.body.data.configVersion).toBe(1);
  });

  it('a key already used on the channel (even archived) is 409 purpose_duplicate; other channels are free', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const first = await createPurpose(t, tenant.testKey, channel.id, { key: 'marketing', name: 'M' });
    const dup = await t.http.post(`/v1/channels/${channel.id}/purposes`, {
      key: tenant.testKey,
      body: { key: 'marketing', name: 'Again' },
    });
    expectProblemShape(dup, 409, 'purpose_duplicate');
    await t.http.post(`/v1/channels/${channel.id}/purposes/${first.id}/archive`, { key: tenant.testKey });
    const afterArchive = await t.http.post(`/v1/channels/${channel.id}/purposes`, {
      key: tenant.testKey,
      body: { key: 'marketing', name: 'Again' },
    });
    expectProblemShape(afterArchive, 409, 'purpose_duplicate');
    const other = await createChannel(t, tenant.testKey);
    await createPurpose(t, tenant.testKey, other.id, { key: 'marketing', name: 'M' });
    // The failed inserts changed nothing: create (v2) and archive (v3) only.
    const read = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(read.body.data.configVersion).toBe(3);
  });

  it('unknown channel is 404', async () => {
    const res = await t.http.post('/v1/channels/ch_0000000000000000000000/purposes', {
      key: tenant.testKey,
      body: { key: 'a', name: 'x' },
    });
    expectProblemShape(res, 404, 'not_found');
  });
});

describe('GET /v1/channels/:id/purposes[/:purposeId]', () => {
  it('lists newest first across pages, archived ones included, and reads one', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      ids.push((await createPurpose(t, tenant.testKey, channel.id, { key: `p${i}`, name: `P${i}` })).id);
    }
    await t.http.post(`/v1/channels/${channel.id}/purposes/${ids[0]}/archive`, { key: tenant.testKey });
    const { items, pages } = await walkPages(t, tenant.testKey, `/v1/channels/${channel.id}/purposes`, 2);
    expect(pages).toBe(3);
    expect(items.map((p) => p.id)).toEqual([...ids].reverse());
    expect(items[4].status).toBe('archived');

    const one = await t.http.get(`/v1/channels/${channel.id}/purposes/${ids[1]}`, { key: tenant.testKey });
    expect(one.status).toBe(200);
    expect(one.body.data.key).toBe('p1');
    expectProblemShape(
      await t.http.get(`/v1/channels/${channel.id}/purposes/pur_nope`, { key: tenant.testKey }),
      404,
      'not_found',
    );
    // A purpose read through another channel of the same organization is not found.
    const other = await createChannel(t, tenant.testKey);
    expectProblemShape(
      await t.http.get(`/v1/channels/${other.id}/purposes/${ids[1]}`, { key: tenant.testKey }),
      404,
      'not_found',
    );
  });

  it('a cursor is bound to its channel', async () => {
    const a = await createChannel(t, tenant.testKey);
    const b = await createChannel(t, tenant.testKey);
    for (const key of ['x', 'y']) await createPurpose(t, tenant.testKey, a.id, { key, name: key });
    const page = await t.http.get(`/v1/channels/${a.id}/purposes?limit=1`, { key: tenant.testKey });
    const cursor = encodeURIComponent(page.body.meta.nextCursor);
    const res = await t.http.get(`/v1/channels/${b.id}/purposes?cursor=${cursor}`, { key: tenant.testKey });
    expectProblemShape(res, 400, 'invalid_cursor');
  });
});

describe('PATCH and archive a purpose', () => {
  it('updates given members only; key is not writable', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const purpose = await createPurpose(t, tenant.testKey, channel.id, {
      key: 'stats',
      name: 'Stats',
      description: 'd',
      translations: { de: { name: 'Statistik' } },
    });
    t.clock.advance(2000);
    const res = await t.http.patch(`/v1/channels/${channel.id}/purposes/${purpose.id}`, {
      key: tenant.testKey,
      body: { name: 'Statistics', consentModeSignals: ['analytics_storage'], required: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      key: 'stats',
      name: 'Statistics',
      description: 'd',
      required: true,
      translations: { de: { name: 'Statistik', description: null } },
      consentModeSignals: ['analytics_storage'],
    });
    expect(res.body.data.updatedAt > purpose.updatedAt).toBe(true);
    for (const [body, path] of [
      [{ key: 'renamed' }, '/key'],
      [{ status: 'archived' }, '/status'],
      [{ gpcOptOut: true }, '/gpcOptOut'], // it is required now: GPC cannot deny it
      [{ consentModeSignals: ['unknown_storage'] }, '/consentModeSignals/0'],
    ] as const) {
      const bad = await t.http.patch(`/v1/channels/${channel.id}/purposes/${purpose.id}`, {
        key: tenant.testKey,
        body,
      });
      expect(expectProblemShape(bad, 422, 'validation_failed').errors[0].path).toBe(path);
    }
    expectProblemShape(
      await t.http.patch(`/v1/channels/${channel.id}/purposes/pur_nope`, { key: tenant.testKey, body: {} }),
      404,
      'not_found',
    );
  });

  it('archives once (409 after), refuses changes to an archived purpose, detaches it from technologies', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const ads = await createPurpose(t, tenant.testKey, channel.id, { key: 'ads', name: 'Ads' });
    await createPurpose(t, tenant.testKey, channel.id, { key: 'stats', name: 'Stats' });
    const tech = await createTechnology(t, tenant.testKey, channel.id, {
      name: 'Pixel',
      purposeKeys: ['ads', 'stats'],
    });
    t.clock.advance(1000);
    const res = await t.http.post(`/v1/channels/${channel.id}/purposes/${ads.id}/archive`, {
      key: tenant.testKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('archived');
    const again = await t.http.post(`/v1/channels/${channel.id}/purposes/${ads.id}/archive`, {
      key: tenant.testKey,
    });
    expectProblemShape(again, 409, 'invalid_state');
    const patch = await t.http.patch(`/v1/channels/${channel.id}/purposes/${ads.id}`, {
      key: tenant.testKey,
      body: { name: 'x' },
    });
    expectProblemShape(patch, 409, 'invalid_state');
    const techNow = await t.http.get(`/v1/channels/${channel.id}/technologies/${tech.id}`, {
      key: tenant.testKey,
    });
    expect(techNow.body.data.purposeKeys).toEqual(['stats']);
    expect(await auditActions(t, tenant.testKey, ads.id)).toEqual(['purpose.created', 'purpose.archived']);
  });
});
