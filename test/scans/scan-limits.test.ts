import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { startTestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { browserSkipReason } from '../sdk/harness.ts';
import { type FixtureSite, startFixtureSite } from './fixture-site.ts';

/**
 * What a hostile page can make of a scan, through the API and the worker's job: megabyte names
 * stay out of the stored scan and its answer, a list of refused hosts stays short, and a page that
 * eats memory fails its scan with a reason instead of taking the worker's machine.
 */

const SCAN_ENV = { ...SITES_TEST_ENV, SCAN_ALLOW_PRIVATE_TARGETS: 'true', SCAN_PAGE_TIMEOUT_SECONDS: '20' };
const MIB = 1024 * 1024;

/** Sets names of every kind far past any real one, and asks for 30 hosts that do not resolve. */
const HUGE_NAMES_PAGE = `<!doctype html><html lang="en"><title>Huge names</title>
<script>
  const mib = 'k'.repeat(${MIB});
  localStorage.setItem('local_' + mib, '1');
  sessionStorage.setItem('session_' + mib, '1');
  localStorage.setItem('lone_\\ud800_surrogate', '1');
  document.cookie = 'cookie_' + 'c'.repeat(3900) + '=1; path=/';
  for (let i = 0; i < 30; i++) new Image().src = 'http://unresolvable-' + i + '.invalid/pixel.gif';
</script></html>`;

/** Fills 1.5 GB of typed arrays in steps, unless stopped first. */
const HUNGRY_PAGE = `<!doctype html><html lang="en"><title>Hungry</title>
<script>
  window.hog = [];
  (function grow() {
    if (hog.length >= 75) return;
    hog.push(new Uint8Array(20 * ${MIB}).fill(1));
    setTimeout(grow, 10);
  })();
</script></html>`;

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let fixture: FixtureSite;

beforeAll(async () => {
  t = await startTestApp({ env: SCAN_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  const html = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  };
  fixture = await startFixtureSite({
    routes: { '/huge-names': html(HUGE_NAMES_PAGE), '/hungry': html(HUNGRY_PAGE) },
  });
  const origin = await t.http.post(`/v1/channels/${site.channelId}/origins`, {
    key: tenant.testKey,
    body: { origin: fixture.origin },
  });
  expect(origin.status, origin.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await fixture?.close();
  await t?.close();
});

/** Starts a scan of `path` on the fixture site with `app`, runs it, and answers GET …/scans/:id. */
async function scan(app: TestApp, path: string) {
  const started = await app.http.post(`/v1/channels/${site.channelId}/scans`, {
    key: tenant.testKey,
    body: { url: `${fixture.origin}${path}` },
  });
  expect(started.status, started.text).toBe(202);
  await app.worker.runDue();
  return t.http.get(`/v1/channels/${site.channelId}/scans/${started.body.data.id}`, { key: tenant.testKey });
}

describe.skipIf(skipWith(browserSkipReason))('a scan of a hostile page', () => {
  it('cuts names to 256 characters, says how long they were, and names 20 refused hosts', async () => {
    const res = await scan(t, '/huge-names');
    const data = res.body.data;
    expect(data.status, data.failureReason).toBe('succeeded');
    console.log(`scan of 1 MiB names: answer of ${res.text.length} characters`);
    expect(res.text.length).toBeLessThan(100_000);

    type F = { kind: string; name: string; detail: string | null; phase: string };
    const findings: F[] = data.findings;
    const named = (prefix: string) => findings.filter((f) => f.name.startsWith(prefix));
    for (const [prefix, kind, detail, length] of [
      ['local_', 'storage', 'localStorage', MIB + 6],
      ['session_', 'storage', 'sessionStorage', MIB + 8],
      ['cookie_', 'cookie', null, 3907],
    ] as const) {
      const found = named(prefix);
      expect(found.map((f) => f.phase).sort()).toEqual(['after-accept', 'after-reject', 'before-consent']);
      for (const finding of found) {
        expect(finding).toMatchObject({ kind, detail });
        expect(finding.name.length).toBeLessThanOrEqual(256);
        expect(finding.name).toMatch(new RegExp(`^${prefix}[kc]+…\\(${length} characters\\)$`));
      }
    }
    // A lone surrogate would not go into the JSON column: it is replaced, and the scan stored.
    expect(named('lone_').map((f) => f.name)).toEqual(Array(3).fill('lone_\ufffd_surrogate'));

    const refused = data.warnings.find((w: string) => w.includes('which the address rules refused'));
    expect(refused).toBeDefined();
    const hosts = refused.match(/unresolvable-\d+\.invalid/g) ?? [];
    expect(hosts.length).toBe(20);
  }, 180_000);

  it('fails with a reason when the page passes SCAN_MEMORY_LIMIT_MB', async () => {
    const limited = await startTestApp({ store: t.store, env: { ...SCAN_ENV, SCAN_MEMORY_LIMIT_MB: '400' } });
    try {
      const started = Date.now();
      const res = await scan(limited, '/hungry');
      const data = res.body.data;
      console.log(
        `scan of the hungry page: ${data.status} after ${Date.now() - started} ms: ${data.failureReason}`,
      );
      expect(data.status).toBe('failed');
      expect(data.failureReason).toBe(
        `The page ${fixture.origin}/hungry used more than 400 MB of memory in the scan's browser; the browser was stopped`,
      );
      expect(data.findings).toEqual([]);
    } finally {
      await limited.close();
    }
  }, 180_000);
});
