import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { launchChromium } from '../sdk/harness.ts';

/** Security headers on HTML and JSON, and the swagger-ui redirect loop. */
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('HTML pages cannot be framed and run nothing foreign', () => {
  for (const path of ['/docs/errors', '/docs/errors/not_found', '/docs/ledger', '/docs/', '/console']) {
    it(path, async () => {
      const res = await t.http.get(path);
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    });
  }
});

describe('every response says nosniff', () => {
  it('JSON, problems (404, 401, 422, router errors), the config fast path and its Fastify route', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const responses = [
      await t.http.get('/v1/channels', { key: tenant.testKey }),
      await t.http.get('/v1/channels'),
      await t.http.get('/v1/nothing-here'),
      await t.http.get('/v1/channels?limit=0', { key: tenant.testKey }),
      await t.http.get('/v1/channels/%E0%A4%A', { key: tenant.testKey }),
      await t.http.get(`/v1/public/sites/${site.siteKey}/config`),
      // An empty query string: Fastify's route, not the fast path.
      await t.http.get(`/v1/public/sites/${site.siteKey}/config?`),
      await t.http.get('/v1/openapi.json'),
      await t.http.get('/healthz'),
    ];
    for (const res of responses) expect(res.headers.get('x-content-type-options'), res.text).toBe('nosniff');
  });
});

describe('swagger-ui', () => {
  it('/docs/static/index.html redirects once to the UI, with or without a query', async () => {
    for (const path of ['/docs/static/index.html', '/docs/static/index.html?url=x']) {
      const res = await fetch(t.baseUrl + path, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/docs/');
      const followed = await fetch(t.baseUrl + path);
      expect(followed.status).toBe(200);
      expect(followed.url).toBe(`${t.baseUrl}/docs/`);
    }
  });

  it('still works in Chromium under its policy (no CSP violation, the operations render)', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      await page.goto(`${t.baseUrl}/docs/`);
      const rendered = await page
        .waitForSelector('.opblock', { timeout: 60_000 })
        .then(() => true)
        .catch(() => false);
      expect(violations).toEqual([]);
      expect(rendered).toBe(true);
    } finally {
      await browser?.close();
    }
  }, 120_000);
});
