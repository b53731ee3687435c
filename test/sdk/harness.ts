import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { resource } from '../helpers/lazy-resources.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/shared-chromium.ts';
import { createReadySite, type ReadySite } from '../helpers/sites.ts';

/** The Chromium the browser tests drive: CHROMIUM_PATH, else the scans' (SCANNER_CHROMIUM_PATH), else Debian's. */
export { CHROMIUM_PATH };

/**
 * Without Debian's chromium the browser tests skip, with the reason, on a developer's machine only:
 * CI installs it (.ci/run), so there a missing browser fails the run instead of passing it silently.
 */
export const browserSkipReason =
  !fs.existsSync(CHROMIUM_PATH) && !process.env.CI
    ? `${CHROMIUM_PATH} is missing (apt-get install -y chromium, or set CHROMIUM_PATH); browser tests skipped`
    : null;

/**
 * The run's shared Chromium (test/helpers/shared-chromium.ts, started when the first file asks),
 * connected to: each file gets a connection of its own, and works in contexts of its own; `close()`
 * closes them and disconnects, leaving the browser to the other files. Without a shared one
 * (SHARED_CHROMIUM=0) it launches a Chromium for the file.
 */
export async function launchChromium(): Promise<Browser> {
  const wsEndpoint = await resource('chromium');
  if (wsEndpoint) return chromium.connect(wsEndpoint);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** The customer's page: blocked scripts and an iframe per purpose, and a recorder of what ran. */
export function shopPage(
  sdkSrc: string,
  siteKey: string,
  options: { gtag: boolean; region?: string; identityToken?: string },
): string {
  const gtag = options.gtag
    ? 'window.gtagCalls = []; function gtag(){ dataLayer.push(arguments); gtagCalls.push(JSON.parse(JSON.stringify(Array.from(arguments)))); }'
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop</title>
<script>window.ran = []; window.dataLayer = window.dataLayer || []; ${gtag}</script>
<script src="${sdkSrc}" data-site-key="${siteKey}"${options.region ? ` data-region="${options.region}"` : ''}${options.identityToken ? ` data-identity-token="${options.identityToken}"` : ''} async></script>
</head><body style="margin:0;font-family:serif">
<header style="background:#036;color:#fff;padding:24px"><h1>Corner Shop</h1></header>
<main style="padding:24px"><p>Fresh bread every morning.</p><a id="page-link" href="#top">Our bakery</a></main>
<script type="text/plain" data-consent-purpose="analytics">window.ran.push('analytics-inline')</script>
<script type="text/plain" data-consent-purpose="analytics" src="/analytics.js"></script>
<script type="text/plain" data-consent-purpose="marketing">window.ran.push('marketing-inline')</script>
<iframe data-consent-purpose="marketing" data-src="/ad.html" title="Advert" width="200" height="50"></iframe>
<script>window.ran.push('page')</script>
</body></html>`;
}

export interface PageServer {
  origin: string;
  /** Paths requested from this server, in order. */
  hits: string[];
  setPage(path: string, html: string): void;
  close(): Promise<void>;
}

/** A plain node:http site on 127.0.0.1 standing in for the customer's website. */
export async function startPageServer(): Promise<PageServer> {
  const pages = new Map<string, { type: string; body: string }>([
    ['/analytics.js', { type: 'text/javascript', body: "window.ran.push('analytics-src');" }],
    ['/ad.html', { type: 'text/html', body: '<!doctype html><p>Advert</p>' }],
  ]);
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.push(path);
    const page = pages.get(path);
    if (!page) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': `${page.type}; charset=utf-8`, 'cache-control': 'no-store' });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    setPage: (path, html) => pages.set(path, { type: 'text/html', body: html }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Site = ReadySite;

/**
 * The shared ready site (required `necessary`, `analytics` with a German translation, `marketing`
 * with gpcOptOut), plus a technology and the page server's origin. `gpcOnly` archives `analytics`
 * (a new configVersion), so GPC alone settles every choice.
 */
export async function createSite(
  t: TestApp,
  key: string,
  origin: string,
  options: { gpcOnly?: boolean } = {},
): Promise<Site> {
  const site = await createReadySite(t, key);
  const channel = `/v1/channels/${site.channelId}`;
  const created = async (path: string, body: unknown) => {
    const res = await t.http.post(`${channel}${path}`, { key, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  await created('/origins', { origin });
  await created('/technologies', {
    name: 'Analytics Suite',
    vendor: 'Example Analytics Inc.',
    purposeKeys: ['analytics'],
  });
  if (options.gpcOnly) {
    const purposes = await t.http.get(`${channel}/purposes`, { key });
    const analytics = purposes.body.data.find((p: { key: string }) => p.key === 'analytics');
    const res = await t.http.post(`${channel}/purposes/${analytics.id}/archive`, { key });
    expect(res.status, res.text).toBe(200);
  }
  const current = await t.http.get(channel, { key });
  return { ...site, configVersion: current.body.data.configVersion };
}

/** Evidence events of one visitor (by raw subjectId) on one channel, newest first. */
export async function evidenceOf(t: TestApp, key: string, site: Site, subjectId: string) {
  const query = new URLSearchParams({ channelId: site.channelId, subjectId });
  const res = await t.http.get(`/v1/evidence?${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<Record<string, any>>;
}
