import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { rawSql } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createChannel,
  createPurpose,
  createTechnology,
  decisionsFrom,
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

const get = (path: string) => t.http.get(path, { key: tenant.testKey });

describe('config versions', () => {
  it('version 1 is the initial config; one snapshot per version, read singly and listed newest first', async () => {
    const channel = await createChannel(t, tenant.testKey, {
      name: 'Shop',
      defaultLanguage: 'de',
      privacyPolicy: { url: 'https://example.com/privacy', version: '7' },
    });
    const res = await get(`/v1/channels/${channel.id}/config-versions/1`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      version: 1,
      createdAt: channel.createdAt,
      reconsent: true,
      config: {
        channelId: channel.id,
        siteKey: channel.siteKey,
        configVersion: 1,
        defaultLanguage: 'de',
        languages: ['de'],
        privacyPolicy: { url: 'https://example.com/privacy', version: '7' },
        regionRules: [{ regions: ['*'], regime: 'opt-in' }],
        consentMaxAgeDays: 180,
        rejectCooldownDays: 0,
        gppCmpId: null,
        gppSections: 'usnat',
        tcf: null,
        integrations: { microsoftUet: false, microsoftClarity: false },
        firstPartyPath: null,
        cookieDomain: null,
        crossDomain: false,
        imports: [],
        purposes: [],
        technologies: [],
      },
    });
    expectProblemShape(await get(`/v1/channels/${channel.id}/config-versions/2`), 404, 'not_found');
    expectProblemShape(await get(`/v1/channels/${channel.id}/config-versions/0`), 422, 'validation_failed');
    expectProblemShape(await get(`/v1/channels/${channel.id}/config-versions/abc`), 422, 'validation_failed');
    expectProblemShape(await get('/v1/channels/ch_nope/config-versions/1'), 404, 'not_found');
    expectProblemShape(await get('/v1/channels/ch_nope/config-versions'), 404, 'not_found');
  });

  it('every visitor-facing change makes a new snapshot; old snapshots never change', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const base = `/v1/channels/${channel.id}`;
    const key = tenant.testKey;
    const snapshots: unknown[] = [(await get(`${base}/config-versions/1`)).body.data];
    let purposeId = '';
    let technologyId = '';
    const changes: Array<() => Promise<unknown>> = [
      async () => {
        purposeId = (
          await createPurpose(t, key, channel.id, {
            key: 'analytics',
            name: 'Analytics',
            translations: { fr: { name: 'Statistiques' } },
            consentModeSignals: ['analytics_storage'],
          })
        ).id;
      },
      () => createPurpose(t, key, channel.id, { key: 'necessary', name: 'Necessary', required: true }),
      () => t.http.patch(`${base}/purposes/${purposeId}`, { key, body: { description: 'Counts visits' } }),
      async () => {
        technologyId = (
          await createTechnology(t, key, channel.id, { name: 'GA', purposeKeys: ['analytics'] })
        ).id;
      },
      () =>
        t.http.patch(`${base}/technologies/${technologyId}`, { key, body: { cookies: [{ name: '_ga' }] } }),
      () => t.http.patch(base, { key, body: { privacyPolicy: { version: '2' } } }),
      () => t.http.patch(base, { key, body: { privacyPolicy: { url: 'https://example.com/p' } } }),
      () => t.http.patch(base, { key, body: { defaultLanguage: 'es' } }),
      () => t.http.delete(`${base}/technologies/${technologyId}`, { key }),
      () => t.http.post(`${base}/purposes/${purposeId}/archive`, { key }),
    ];
    for (const [i, change] of changes.entries()) {
      t.clock.advance(1000);
      await change();
      const version = i + 2;
      const channelNow = (await get(base)).body.data;
      expect(channelNow.configVersion, `after change ${i}`).toBe(version);
      const snapshot = (await get(`${base}/config-versions/${version}`)).body.data;
      expect(snapshot.version).toBe(version);
      expect(snapshot.config.configVersion).toBe(version);
      expect(JSON.stringify(snapshot.config)).not.toBe(
        JSON.stringify({ ...(snapshots[i] as any).config, configVersion: version }),
      );
      snapshots.push(snapshot);
      // Every earlier snapshot is byte for byte what it was.
      for (const [j, old] of snapshots.entries()) {
        expect(
          (await get(`${base}/config-versions/${j + 1}`)).body.data,
          `v${j + 1} after change ${i}`,
        ).toEqual(old);
      }
    }

    const v3 = (snapshots[2] as any).config;
    expect(v3.purposes.map((p: any) => p.key)).toEqual(['analytics', 'necessary']);
    expect(v3.languages).toEqual(['en', 'fr']);
    expect(v3.purposes[0]).toEqual({
      key: 'analytics',
      name: 'Analytics',
      description: null,
      legalBasis: 'consent',
      required: false,
      translations: { fr: { name: 'Statistiques', description: null } },
      consentModeSignals: ['analytics_storage'],
      gpcOptOut: false,
    });
    const v6 = (snapshots[5] as any).config;
    expect(v6.technologies).toEqual([
      {
        name: 'GA',
        vendor: null,
        purposeKeys: ['analytics'],
        cookies: [{ name: '_ga', domain: null, maxAgeSeconds: null }],
      },
    ]);
    const last = (snapshots[10] as any).config;
    expect(last).toMatchObject({
      defaultLanguage: 'es',
      languages: ['es'],
      privacyPolicy: { url: 'https://example.com/p', version: '2' },
      technologies: [],
    });
    expect(last.purposes.map((p: any) => p.key)).toEqual(['necessary']);

    const { items, pages } = await walkPages(t, key, `${base}/config-versions`, 4);
    expect(pages).toBe(3);
    expect(items.map((v) => v.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(items.reverse()).toEqual(snapshots);
  });

  it('changes visitors do not see leave configVersion alone', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const base = `/v1/channels/${channel.id}`;
    const key = tenant.testKey;
    const purpose = await createPurpose(t, key, channel.id, { key: 'ads', name: 'Ads' });
    const technology = await createTechnology(t, key, channel.id, { name: 'Pixel' });
    const origin = await t.http.post(`${base}/origins`, { key, body: { origin: 'https://example.com' } });
    expect((await get(base)).body.data.configVersion).toBe(3);
    const unchanged: Array<[string, string, unknown]> = [
      ['PATCH', base, { name: 'Renamed', description: 'now described' }],
      ['PATCH', base, { privacyPolicy: { retentionDays: 30 } }],
      ['PATCH', base, {}],
      ['PATCH', base, { defaultLanguage: 'en', privacyPolicy: { version: '1' } }],
      ['PATCH', `${base}/purposes/${purpose.id}`, { name: 'Ads' }],
      ['PATCH', `${base}/technologies/${technology.id}`, { name: 'Pixel', purposeKeys: [] }],
      ['POST', `${base}/origins`, { origin: 'https://other.example.com' }],
      ['POST', `${base}/origins/${origin.body.data.id}/archive`, {}],
    ];
    for (const [method, path, body] of unchanged) {
      const res = await t.http.request(method, path, { key, body });
      expect(res.status, `${method} ${path} ${res.text}`).toBeLessThan(300);
    }
    expect((await get(base)).body.data.configVersion).toBe(3);
    expectProblemShape(await get(`${base}/config-versions/4`), 404, 'not_found');
  });

  it('the public reads serve the current snapshot and know every version the channel had', async () => {
    const channel = await createChannel(t, tenant.testKey);
    await createPurpose(t, tenant.testKey, channel.id, { key: 'ads', name: 'Ads' });
    const served = await t.http.get(`/v1/public/sites/${channel.siteKey}/config`);
    // The snapshot, resolved for the visitor's region (unknown here: no geo settings). Its `tcf`
    // (null: not a TCF channel) is the snapshot's own: visitors get one only on TCF channels.
    const { tcf, ...snapshot } = (await get(`/v1/channels/${channel.id}/config-versions/2`)).body.data.config;
    expect(tcf).toBeNull();
    expect(served.body.data).toEqual({
      ...snapshot,
      region: { code: null, source: 'unknown' },
      regime: 'opt-in',
      consentRequiredSince: 2,
      // Where its pages may run: none registered, and a test channel runs on localhost.
      origins: ['http://localhost:*', 'http://127.0.0.1:*'],
      siblingDomains: [],
      // An English channel: the SDK has its words.
      bannerWords: {},
    });
    // A decision may answer any version the channel had, and no other.
    const decide = await decisionsFrom(t, tenant.testKey, channel);
    expect((await decide(1)).status).toBe(201);
    expect((await decide(2)).status).toBe(201);
    expectProblemShape(await decide(3), 422, 'validation_failed');
    expectProblemShape(await decide(0), 422, 'validation_failed');
  });

  it('concurrent changes to one channel each get their own version', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.http.post(`/v1/channels/${channel.id}/purposes`, {
          key: tenant.testKey,
          body: { key: `p${i}`, name: `P${i}` },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect((await get(`/v1/channels/${channel.id}`)).body.data.configVersion).toBe(7);
    const { items } = await walkPages(t, tenant.testKey, `/v1/channels/${channel.id}/config-versions`, 100);
    expect(items.map((v) => v.config.purposes.length)).toEqual([6, 5, 4, 3, 2, 1, 0]);
  });

  it('the database itself refuses to update a stored snapshot', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const before = (await get(`/v1/channels/${channel.id}/config-versions/1`)).body.data;
    const tamper = rawSql(t.store).execute(
      sql`update channel_config_versions set snapshot = '{}'::jsonb where channel_id = ${channel.id}`,
    );
    await expect(tamper).rejects.toThrow();
    expect((await get(`/v1/channels/${channel.id}/config-versions/1`)).body.data).toEqual(before);
  });
});
