import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { sdkFixture } from '../sdk/fixture.ts';
import { browserSkipReason, createSite } from '../sdk/harness.ts';
import { evidenceOf } from './core/app-channel.ts';

/**
 * @consent-service/react-native rendered through react-native-web in Chromium, against the
 * service: the banner's buttons by their accessibility roles and labels, "Reject all" drawn as
 * "Accept all" is, the gate, and the preferences' switches. Its types are checked against
 * react-native's own when the package is built (packages/build.ts), as test/packages packs it.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

const APP = `
import { createRoot } from 'react-dom/client';
import { Pressable, Text, View } from 'react-native';
import { ConsentBanner, ConsentGate, ConsentPreferences, ConsentProvider, useConsent } from ${JSON.stringify(
  path.join(ROOT, 'packages/react-native/src/index.tsx'),
)};

const storage = {
  getItem: async (key) => localStorage.getItem(key),
  setItem: async (key, value) => localStorage.setItem(key, value),
  removeItem: async (key) => localStorage.removeItem(key),
};

function Settings() {
  const { showPreferences } = useConsent();
  return <Pressable accessibilityRole="button" accessibilityLabel="Privacy settings" onPress={showPreferences}><Text>Privacy settings</Text></Pressable>;
}

const { baseUrl, siteKey } = window.consentTest;
createRoot(document.getElementById('root')).render(
  <ConsentProvider options={{ baseUrl, siteKey, storage, language: 'en' }}>
    <View>
      <ConsentGate purpose="analytics" fallback={<Text testID="fallback">Analytics is off</Text>}>
        <Text testID="gated">Analytics is on</Text>
      </ConsentGate>
      <Settings />
    </View>
    <ConsentBanner />
    <ConsentPreferences />
  </ConsentProvider>,
);
`;

async function bundle(): Promise<string> {
  const result = await build({
    stdin: { contents: APP, loader: 'tsx', resolveDir: ROOT },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    jsx: 'automatic',
    alias: {
      'react-native': 'react-native-web',
      '@consent-service/core': path.join(ROOT, 'packages/core/src/index.ts'),
    },
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

describe.skipIf(skipWith(browserSkipReason))('@consent-service/react-native through react-native-web', () => {
  const f = sdkFixture();

  it('asks with "Accept all" and "Reject all" alike, records the choice, and the preferences change it', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const code = await bundle();
    f.pages.setPage(
      '/rn-shop.html',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>RN shop</title></head>
<body><div id="root"></div><script>window.consentTest = ${JSON.stringify({ baseUrl: f.t.baseUrl, siteKey: site.siteKey })};</script>
<script>${code.replaceAll('</script', '<\\/script')}</script></body></html>`,
    );
    const context = await f.browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${f.pages.origin}/rn-shop.html`);

    const accept = page.getByRole('button', { name: 'Accept all' });
    const reject = page.getByRole('button', { name: 'Reject all' });
    await accept.waitFor();
    expect(await page.getByRole('alert', { name: 'Privacy choices' }).isVisible()).toBe(true);
    // As prominent: the same size, colours and type.
    // Run in the page; the test's own types have no DOM, so the page's globals are reached untyped.
    const look = (button: typeof accept) =>
      button.evaluate((el: any) => {
        const style = (globalThis as any).getComputedStyle;
        const s = style(el);
        const text = style(el.firstElementChild);
        const box = el.getBoundingClientRect();
        return [
          s.backgroundColor,
          text.color,
          text.fontSize,
          text.fontWeight,
          Math.round(box.height),
          Math.round(box.width),
        ];
      });
    expect(await look(accept)).toEqual([
      'rgb(26, 86, 219)',
      'rgb(255, 255, 255)',
      '16px',
      '600',
      expect.any(Number),
      expect.any(Number),
    ]);
    expect(await look(reject)).toEqual(await look(accept));
    expect(await page.getByTestId('fallback').isVisible()).toBe(true);

    await accept.click();
    await page.getByTestId('gated').waitFor();
    await expect.poll(async () => (await evidenceOf(f.t, f.key, site.channelId)).length).toBe(1);
    const [accepted] = await evidenceOf(f.t, f.key, site.channelId);
    expect(accepted).toMatchObject({
      source: 'banner',
      decisions: { analytics: 'granted', marketing: 'granted' },
    });
    // The banner's Modal closes after its own fade: wait until it has gone.
    await accept.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Privacy settings' }).click();
    const analytics = page.getByRole('switch', { name: 'Analytics', exact: true });
    await analytics.waitFor();
    expect(await analytics.isChecked()).toBe(true);
    await analytics.click();
    await page.getByRole('button', { name: 'Save choices' }).click();
    await page.getByTestId('fallback').waitFor();
    await expect.poll(async () => (await evidenceOf(f.t, f.key, site.channelId)).length).toBe(2);
    const [changed] = await evidenceOf(f.t, f.key, site.channelId);
    expect(changed).toMatchObject({
      source: 'preference_center',
      decisions: { analytics: 'denied', marketing: 'granted' },
    });
    expect(errors).toEqual([]);
    await context.close();
  });
});
