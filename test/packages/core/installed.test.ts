import fs from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { SITES_TEST_ENV } from '../../helpers/sites.ts';
import { installThrowawayApp, type ThrowawayApp } from '../throwaway-app.ts';
import { APP_ID, createAppChannel, evidenceOf } from './app-channel.ts';

/**
 * @consent-service/core as a Node app gets it: packed, installed alone from its tarball (nothing
 * from the registry: it has no dependency to fetch), and the examples of its README and of the apps
 * guide run, as written, against the service.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const DOCS = ['docs/guides/apps.md', 'packages/core/README.md'];

/** The TypeScript examples of `file` that use the package. */
function examples(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)]
    .map((m) => m[1])
    .filter((code) => code.includes("from '@consent-service/core'"));
}

let t: TestApp;
let tenant: Tenant;
let app: ThrowawayApp;
beforeAll(async () => {
  const installing = installThrowawayApp({ packages: ['core'], registry: [] });
  installing.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  app = await installing;
}, 300_000);
afterAll(async () => {
  app?.remove();
  await t?.close();
});

describe('@consent-service/core installed from its tarball', () => {
  it('exports the client and its version, built from the package itself', async () => {
    app.write({
      'exports.mjs':
        "console.log(JSON.stringify(Object.keys(await import('@consent-service/core')).sort()));",
    });
    expect(JSON.parse(await app.node('exports.mjs'))).toEqual(['SDK_VERSION', 'createConsentClient']);
    const installed = path.join(app.dir, 'node_modules/@consent-service/core');
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
  });

  for (const doc of DOCS) {
    it(`runs the example of ${doc} in Node against the service`, async () => {
      const [example, ...more] = examples(doc);
      expect(more).toEqual([]);
      const channel = await createAppChannel(t, tenant.testKey);
      const code = example
        .replace("'https://consent.example.com'", JSON.stringify(t.baseUrl))
        .replace("'site_live_…'", JSON.stringify(channel.siteKey));
      const { code: js } = await transform(code, { loader: 'ts', format: 'esm' });
      const file = `${path.basename(doc, '.md')}-example.mjs`;
      app.write({ [file]: js });
      const decisions = JSON.parse(await app.node(file));
      expect(decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'denied' });
      const events = await evidenceOf(t, tenant.testKey, channel.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        decisions,
        app: { appId: APP_ID, platform: 'ios', sdkVersion: '0.1.0' },
      });
    });
  }
});
