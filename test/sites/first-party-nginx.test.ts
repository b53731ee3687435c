import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionCookieName, readDecisionCookie } from '../../src/shared/decision-cookie.ts';
import { nginxLocation } from '../../src/shared/first-party-proxy.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { nginxAvailable, type RunningNginx, startNginx } from '../helpers/nginx.ts';
import { SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';

/**
 * The first-party path as a site runs it: the guide's nginx configuration
 * (docs/guides/keep-the-choice/nginx.conf, the text src/shared/first-party-proxy.ts makes, which the
 * console shows too) in front of the service, started with TRUST_PROXY trusting loopback. Through it
 * the decision is set by the service as a cookie of the page's own host; straight to the service,
 * with the same Origin, it is not.
 */
const GUIDE_CONF = path.resolve('docs/guides/keep-the-choice/nginx.conf');
const skipReason =
  !nginxAvailable() && process.env.CI !== 'true'
    ? 'no nginx (apt-get install -y nginx-light): the first-party path through a real proxy is not run'
    : null;

let t: TestApp;
let tenant: Tenant;
let proxy: RunningNginx;
let siteKey: string;
let configVersion: number;
let page: string;

/** A request to nginx as the visitor's browser sends it from the page (Host: the page's host). */
function throughProxy(method: string, pathname: string, headers: Record<string, string>, body?: unknown) {
  return new Promise<{ status: number; setCookie: string[]; cacheControl: string | undefined; text: string }>(
    (resolve, reject) => {
      const req = http.request(
        `${proxy.url}${pathname}`,
        { method, headers: { ...headers, host: new URL(page).host } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              setCookie: res.headers['set-cookie'] ?? [],
              cacheControl: res.headers['cache-control'],
              text,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    },
  );
}

beforeAll(async () => {
  if (skipReason) return;
  t = await startTestApp({ env: { ...SITES_TEST_ENV, TRUST_PROXY: '127.0.0.1' } });
  tenant = await t.tenant();
  proxy = await startNginx(nginxLocation('/consent', t.baseUrl));
  // The page is on localhost at the proxy's port; the service is reached at 127.0.0.1: another site.
  page = `http://localhost:${proxy.port}`;
  const channel = await t.http.post('/v1/channels', {
    key: tenant.testKey,
    body: { name: 'Proxied', firstPartyPath: '/consent' },
  });
  expect(channel.status, channel.text).toBe(201);
  siteKey = channel.body.data.siteKey;
  for (const [url, body] of [
    [`/v1/channels/${channel.body.data.id}/origins`, { origin: page }],
    [`/v1/channels/${channel.body.data.id}/purposes`, { key: 'analytics', name: 'Analytics' }],
  ] as const) {
    const res = await t.http.post(url, { key: tenant.testKey, body });
    expect(res.status, res.text).toBe(201);
  }
  configVersion = (await t.http.get(`/v1/channels/${channel.body.data.id}`, { key: tenant.testKey })).body
    .data.configVersion;
}, 60_000);
afterAll(async () => {
  await proxy?.stop();
  await t?.close();
});

describe.skipIf(skipWith(skipReason))('through the guide’s nginx configuration', () => {
  it('is the text the guide shows', () => {
    const conf = fs.readFileSync(GUIDE_CONF, 'utf8');
    expect(conf).toBe(nginxLocation('/consent', 'https://consent.example.com'));
    const guide = fs.readFileSync(path.resolve('docs/guides/keep-the-choice.md'), 'utf8');
    expect(/```nginx\n([\s\S]*?)```/.exec(guide)?.[1]).toBe(conf);
  });

  it('a decision comes back as the page host’s own cookie; straight to the service it does not', async () => {
    const body = { subjectId: 'f'.repeat(32), decisions: { analytics: 'granted' }, configVersion };
    const headers = { origin: page, 'content-type': 'application/json' };
    const res = await throughProxy('POST', `/consent/v1/public/sites/${siteKey}/preferences`, headers, body);
    expect(res.status, res.text).toBe(201);
    expect(res.setCookie).toHaveLength(1);
    const [pair, ...attributes] = res.setCookie[0].split('; ');
    expect(readDecisionCookie(pair, siteKey)).toMatchObject({
      s: body.subjectId,
      d: body.decisions,
      v: configVersion,
    });
    // An http page: no Secure; no cookieDomain: host-only.
    expect(attributes).toEqual([`Max-Age=${180 * 86_400}`, 'Path=/', 'SameSite=Lax']);
    expect(res.cacheControl).toBe('private, no-store');

    // sdk.js through the path refreshes it; the config too.
    for (const asset of ['sdk.js', 'config']) {
      const read = await throughProxy('GET', `/consent/v1/public/sites/${siteKey}/${asset}`, {
        cookie: pair,
      });
      expect(read.status, asset).toBe(200);
      expect(
        read.setCookie.map((c) => c.split('; ')[0]),
        asset,
      ).toEqual([pair]);
    }
    const fresh = await throughProxy('GET', `/consent/v1/public/sites/${siteKey}/sdk.js`, {});
    expect(fresh.setCookie).toEqual([]);

    const direct = await fetch(`${t.baseUrl}/v1/public/sites/${siteKey}/preferences`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...body, subjectId: 'e'.repeat(32) }),
    });
    expect(direct.status).toBe(201);
    expect(direct.headers.getSetCookie()).toEqual([]);
    expect(decisionCookieName(siteKey)).toBe(pair.split('=')[0]);
  });
});
