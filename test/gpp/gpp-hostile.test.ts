import { GppModel } from '@iabgpp/cmpapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { hostileTcfEuGpp } from '../helpers/gpp.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * GPP strings built to make `@iabgpp/cmpapi`'s decoder expand a declared range one id at a time.
 * Before the bounds, the first blocked the event loop for 18 s and then killed the
 * process ("Fatal JavaScript invalid size error"); the second answered after 14.6 s and 2 GB. Each
 * is refused promptly with the 422 a GPP string that does not decode gets, the service answers its
 * health check all the while, and a real string is still recorded afterwards.
 */
const HEADER_RANGES = {
  // Header: one entry, a range from id 1 of about 169 million ids (a 40-bit Fibonacci length).
  'header range of 15 characters': 'DBAB9JJSKJVBg~A',
  'header range of 13 characters': 'DBAB5CqChUr~A',
};
/**
 * A valid header (one section) whose section's content declares such a range. They reached the
 * library, which ran where it could not hold the event loop, but stopped the one decoder every tenant
 * shared; the section bounds now refuse them before any decoding.
 */
const CONTENT_RANGES = {
  // tcfcav1 (id 5): its vendor express consents are a Fibonacci range of about 169 million ids.
  'tcfcav1 vendor range of 70 characters': {
    gppString: 'DBABDA~BQuRoGqQuRoGqAAAAAENAACAAAAAAAAAAADJAB9VVVVVVgAAAAA.YAAAAAAAAAA',
    reason: 'its sections name a vendor id above 65535',
  },
  // tcfeuv2 (id 2): 700 vendor ranges 1..65535, 45 million ids (before: recorded, after 2 s and 1.5 GB).
  'tcfeuv2 of 700 vendor ranges (3.9k)': {
    gppString: `DBABMA~CQuPXIAQuPXIAAAAAAENAAFgAAAAAAAAAAAHUwSvIAA${'___AAH__4AA'.repeat(349)}___AAH__wAAAAA.IAAA.YAAAAAAAAAAA`,
    reason: 'its sections make the decoder expand more than 20000 vendor ids',
  },
};
const USNAT = 'DBABLA~BVQqAAAAAgA.QA';

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey, { gppCmpId: 300 });
});
afterAll(() => t.close());

/** Runs `request` while GET /healthz is sent every 50 ms; the worst health latency seen, in ms. */
async function watchingHealth<T>(request: () => Promise<T>): Promise<{ result: T; worstHealthMs: number }> {
  let worstHealthMs = 0;
  let done = false;
  const probe = async () => {
    while (!done) {
      const sent = performance.now();
      const res = await t.http.get('/healthz');
      expect(res.status).toBe(200);
      worstHealthMs = Math.max(worstHealthMs, performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const probing = probe();
  try {
    return { result: await request(), worstHealthMs };
  } finally {
    done = true;
    await probing;
  }
}

async function evidenceCount(): Promise<number> {
  const res = await t.http.get(`/v1/evidence?channelId=${site.channelId}&limit=100`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data.length;
}

async function refusedPromptly(gppString: string, withinMs: number): Promise<TestResponse> {
  const started = performance.now();
  // No API key, and the site's own Origin, which any client other than a browser may send.
  const { result: res, worstHealthMs } = await watchingHealth(() =>
    postPreferences(t, site.siteKey, preferencesBody(site, { gppString })),
  );
  const elapsed = performance.now() - started;
  expectProblemShape(res, 422, 'validation_failed');
  expect(res.body.errors).toEqual([
    { path: '/gppString', message: expect.stringMatching(/^is not a GPP string/) },
  ]);
  expect(elapsed).toBeLessThan(withinMs);
  expect(worstHealthMs).toBeLessThan(1000);
  return res;
}

describe('hostile GPP strings', () => {
  for (const [name, gppString] of Object.entries(HEADER_RANGES)) {
    it(`${name}: 422 at once, refused by the header bounds before any decoding`, async () => {
      const before = await evidenceCount();
      const res = await refusedPromptly(gppString, 1000);
      expect(res.body.errors[0].message).toBe(
        'is not a GPP string this service accepts: its header declares a range of more than 64 section ids',
      );
      expect((await t.http.get('/healthz')).status).toBe(200);
      expect(await evidenceCount()).toBe(before);
    });
  }

  for (const [name, { gppString, reason }] of Object.entries(CONTENT_RANGES)) {
    it(`${name}: 422 at once, refused by the section bounds before any decoding`, async () => {
      const before = await evidenceCount();
      const res = await refusedPromptly(gppString, 1000);
      // Before the section bounds: "is not a GPP string that decodes: its decoding stopped the decoder …".
      expect(res.body.errors[0].message).toBe(`is not a GPP string this service accepts: ${reason}`);
      expect((await t.http.get('/healthz')).status).toBe(200);
      expect(await evidenceCount()).toBe(before);
    });
  }

  it('the 603-character tcfeuv2 string of 100 vendor ranges 1..65535: 422 before any decoding', async () => {
    const before = await evidenceCount();
    // Before: the decoder ran out of memory on it and stopped ("its decoding stopped the decoder").
    const res = await refusedPromptly(hostileTcfEuGpp(), 5000);
    expect(res.body.errors[0].message).toBe(
      'is not a GPP string this service accepts: its sections make the decoder expand more than 20000 vendor ids',
    );
    expect(await evidenceCount()).toBe(before);
  });

  it('a flood of them: every one a 422, none waits for the decoder (no 503)', async () => {
    const hostile = [...Object.values(CONTENT_RANGES).map((c) => c.gppString), hostileTcfEuGpp()];
    const { result: answers, worstHealthMs } = await watchingHealth(() =>
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          postPreferences(t, site.siteKey, preferencesBody(site, { gppString: hostile[i % hostile.length] })),
        ),
      ),
    );
    for (const res of answers) {
      expectProblemShape(res, 422, 'validation_failed');
      expect(res.body.errors[0].message).toMatch(/^is not a GPP string this service accepts: /);
    }
    expect(worstHealthMs).toBeLessThan(1000);
  });

  it('afterwards the service answers, and a real GPP string is recorded', async () => {
    expect((await t.http.get('/healthz')).status).toBe(200);
    const res = await postPreferences(t, site.siteKey, preferencesBody(site, { gppString: USNAT }));
    expect(res.status, res.text).toBe(201);
  });

  it('vendor lists within the bound (four of 3,000 ids, two of 1,000) are decoded; six of all 65,535 ids, refused before decoding', async () => {
    const lists = (last: number, withTcfEu = true) => {
      const ids = Array.from({ length: last }, (_, i) => i + 1);
      const model = new GppModel();
      const tcfEuFields = [
        'VendorConsents',
        'VendorLegitimateInterests',
        'VendorsDisclosed',
        'VendorsAllowed',
      ];
      for (const field of withTcfEu ? tcfEuFields : []) model.setFieldValue('tcfeuv2', field, ids);
      model.setFieldValue('tcfcav1', 'VendorExpressConsent', ids.slice(0, 1000));
      model.setFieldValue('tcfcav1', 'VendorImpliedConsent', ids.slice(0, 1000));
      model.setFieldValue('usnat', 'SaleOptOut', 1);
      return model.encode();
    };
    const within = lists(3000);
    expect(new GppModel(within).getSection('tcfeuv2')).toMatchObject({ VendorsAllowed: expect.any(Array) });
    // Decoded (not refused by the bound); then its EU TCF section is a TC string, which this
    // channel, without TCF settings, refuses as it refuses a tcString.
    const decoded = await postPreferences(t, site.siteKey, preferencesBody(site, { gppString: within }));
    expect(expectProblemShape(decoded, 422, 'validation_failed').errors).toEqual([
      { path: '/gppString', message: expect.stringMatching(/^carries an EU TCF section \(tcfeuv2\), but /) },
    ]);
    const withoutTcfEu = lists(3000, false);
    const res = await postPreferences(t, site.siteKey, preferencesBody(site, { gppString: withoutTcfEu }));
    expect(res.status, res.text).toBe(201);
    // The largest string the encoder makes: six lists of every 16-bit id, 393,210 ids to expand.
    const refused = await postPreferences(
      t,
      site.siteKey,
      preferencesBody(site, { gppString: lists(65535) }),
    );
    expectProblemShape(refused, 422, 'validation_failed');
    expect(refused.body.errors[0].message).toBe(
      'is not a GPP string this service accepts: its sections make the decoder expand more than 20000 vendor ids',
    );
  });
});
