import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { nginxLocation } from '../../src/shared/first-party-proxy.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { nginxAvailable, type RunningNginx, startNginx } from '../helpers/nginx.ts';
import { CHROMIUM_ARGS } from '../helpers/shared-chromium.ts';
import { SITES_TEST_ENV } from '../helpers/sites.ts';
import { browserSkipReason, CHROMIUM_PATH } from './harness.ts';

/**
 * A site as a customer runs one with the first-party path: a real nginx on loopback in front of
 * both the site's own pages and the service (the guide's location, src/shared/first-party-proxy.ts),
 * reached by Chromium under invented host names mapped to 127.0.0.1, so that `www.` and `shop.` of
 * one registrable domain and a sibling domain are three sites as the browser sees them.
 */
export const HOSTS = {
  www: 'www.example.test',
  shop: 'shop.example.test',
  sibling: 'www.example-de.test',
} as const;

export interface ProxiedSite {
  proxy: RunningNginx;
  /** `http://<host>:<nginx port>` */
  origin(host: string): string;
  /** Serves `html` at `path` on every host. */
  setPage(path: string, html: string): void;
  browser: Browser;
  /** A new visitor: a context of their own, recording what the page's scripts write to document.cookie. */
  visitor(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Records every `document.cookie` write of the page (window.cookieWrites), then writes it. */
const RECORD_COOKIE_WRITES = `(() => {
  const own = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie');
  window.cookieWrites = [];
  Object.defineProperty(document, 'cookie', {
    configurable: true,
    get: () => own.get.call(document),
    set: (value) => { window.cookieWrites.push(String(value)); own.set.call(document, value); },
  });
})();`;

export async function startProxiedSite(t: TestApp): Promise<ProxiedSite> {
  const pages = new Map<string, string>();
  const pageServer = http.createServer((req, res) => {
    const html = pages.get((req.url ?? '/').split('?')[0]);
    if (!html) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  const pagePort = (pageServer.address() as AddressInfo).port;
  const proxy = await startNginx(`${nginxLocation('/consent', t.baseUrl)}
location / {
    proxy_pass http://127.0.0.1:${pagePort};
    proxy_set_header Host $http_host;
}`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP *.test 127.0.0.1'],
  });
  const contexts: BrowserContext[] = [];
  return {
    proxy,
    origin: (host) => `http://${host}:${proxy.port}`,
    setPage: (path, html) => pages.set(path, html),
    browser,
    async visitor() {
      const context = await browser.newContext();
      await context.addInitScript(RECORD_COOKIE_WRITES);
      contexts.push(context);
      return context;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await proxy.stop();
      pageServer.closeAllConnections();
      await new Promise((resolve) => pageServer.close(resolve));
    },
  };
}

/** A page of the site loading sdk.js from `sdkSrc` (the first-party path, or the service's address). */
export function sitePage(sdkSrc: string, siteKey: string, body = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script>window.ran = [];</script>
<script src="${sdkSrc}" data-site-key="${siteKey}" async></script></head>
<body><main><h1>Shop</h1>${body}</main>
<script type="text/plain" data-consent-purpose="analytics">window.ran.push('analytics')</script>
</body></html>`;
}

/** The first-party snippet's sdk.js for a site key: a root-relative URL on the page's own origin. */
export const firstPartySdk = (siteKey: string) => `/consent/v1/public/sites/${siteKey}/sdk.js`;

/** A channel with the ready site's purposes (necessary, analytics, marketing) and `settings`, on `origins`. */
export async function createChannel(
  t: TestApp,
  key: string,
  origins: string[],
  settings: Record<string, unknown>,
): Promise<{ id: string; siteKey: string }> {
  const created = await t.http.post('/v1/channels', { key, body: { name: 'Keep the choice' } });
  expect(created.status, created.text).toBe(201);
  const { id, siteKey } = created.body.data;
  const post = async (path: string, body: unknown) => {
    const res = await t.http.post(`/v1/channels/${id}${path}`, { key, body });
    expect(res.status, res.text).toBe(201);
  };
  await post('/purposes', { key: 'necessary', name: 'Strictly necessary', required: true });
  await post('/purposes', { key: 'analytics', name: 'Analytics' });
  await post('/purposes', { key: 'marketing', name: 'Marketing' });
  for (const origin of origins) await post('/origins', { origin });
  const patched = await t.http.patch(`/v1/channels/${id}`, { key, body: settings });
  expect(patched.status, patched.text).toBe(200);
  return { id, siteKey };
}

/** The visitor's evidence on a channel (by raw subjectId), newest first. */
export async function evidenceOf(t: TestApp, key: string, channelId: string, subjectId: string) {
  const res = await t.http.get(`/v1/evidence?${new URLSearchParams({ channelId, subjectId })}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<Record<string, any>>;
}

/**
 * Why these browser tests skip here: no Chromium, or no nginx off CI (`.ci/run` installs both, so
 * there a missing one fails the run); null: they run.
 */
export const proxiedSkipReason =
  browserSkipReason ??
  (!nginxAvailable() && process.env.CI !== 'true' ? 'no nginx (apt-get install -y nginx-light)' : null);

/** A page's SDK has applied a decision (with or without a banner). */
export const DECIDED = 'window.ConsentService && window.ConsentService.getDecisions() !== null';

/** What a file of these tests runs on: the service (trusting the loopback nginx), a tenant, the site. */
export interface KeepTheChoiceRun {
  t: TestApp;
  tenant: Tenant;
  site: ProxiedSite;
}

/** Starts a file's service, tenant and proxied site (TRUST_PROXY: the nginx on loopback). */
export async function startKeepTheChoiceRun(): Promise<KeepTheChoiceRun> {
  const t = await startTestApp({ env: { ...SITES_TEST_ENV, TRUST_PROXY: '127.0.0.1' } });
  return { t, tenant: await t.tenant(), site: await startProxiedSite(t) };
}

/** Closes what startKeepTheChoiceRun started (what of it there is). */
export async function closeKeepTheChoiceRun(run: Partial<KeepTheChoiceRun>) {
  await run.site?.close();
  await run.t?.close();
}
