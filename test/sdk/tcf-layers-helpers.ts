import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { TcfChoice } from '../../sdk/src/tcf/layers/types.ts';
import type { Purpose, SiteConfig } from '../../sdk/src/types.ts';
import { buildLanguageFile, buildVendorList } from '../helpers/gvl.ts';
import type { PageServer } from './harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A test entry bundled the way sdk/build.ts bundles the SDK (esbuild, IIFE, es2020): the real
 * layers module and IAB's GVL class, started from the page with a vendor list the test made.
 * `window.tcfChoices` records what the layers report.
 */
const ENTRY = `
import { GVL } from '@iabtechlabtcf/core';
import { createTcfLayers } from './sdk/src/tcf/layers/index.ts';
import { stringsFor } from './sdk/src/strings.ts';
import { BANNER_WORDS } from './src/shared/banner-words.ts';
window.tcfChoices = [];
const layers = createTcfLayers();
window.startTcfLayers = (o) => layers.show({
  gvl: new GVL(o.list),
  config: o.config,
  language: o.language,
  strings: stringsFor(o.language, BANNER_WORDS),
  previous: o.previous,
  view: o.view,
  onChoice(choice, action) {
    window.tcfChoices.push({ choice, action });
    layers.hide();
  },
});
`;

export async function buildLayersBundle(): Promise<{ code: string; layersGzipBytes: number }> {
  const { build } = await import('esbuild');
  const options = {
    bundle: true,
    minify: true,
    format: 'iife' as const,
    platform: 'browser' as const,
    target: ['es2020'],
    legalComments: 'none' as const,
    write: false,
    logLevel: 'silent' as const,
  };
  const result = await build({ ...options, stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts' } });
  // The layers alone (what they add to tcf.js beyond IAB's library and the SDK's shared parts).
  const layers = await build({
    ...options,
    stdin: {
      contents:
        "import { createTcfLayers } from './sdk/src/tcf/layers/index.ts'; window.s = createTcfLayers;",
      resolveDir: ROOT,
      loader: 'ts',
    },
  });
  const { gzipSync } = await import('node:zlib');
  return {
    code: result.outputFiles![0].text,
    layersGzipBytes: gzipSync(layers.outputFiles![0].text, { level: 9 }).length,
  };
}

const purpose = (key: string, name: string, extra: Partial<Purpose> = {}): Purpose => ({
  key,
  name,
  description: `${name}: what the site uses it for.`,
  legalBasis: 'consent',
  required: false,
  translations: {},
  consentModeSignals: [],
  gpcOptOut: false,
  ...extra,
});

/** A channel's config with one required and one optional purpose of its own. */
export const CONFIG: SiteConfig = {
  channelId: 'chn_layers',
  configVersion: 3,
  defaultLanguage: 'en',
  languages: ['en', 'de'],
  privacyPolicy: { url: 'https://shop.example/privacy', version: '1' },
  purposes: [
    purpose('necessary', 'Necessary', { required: true, legalBasis: 'legitimate_interest' }),
    purpose('analytics', 'Site analytics', {
      translations: { de: { name: 'Website-Statistik', description: 'Wie die Website genutzt wird.' } },
    }),
  ],
  technologies: [],
  regime: 'opt-in',
};

/** An illustration of purpose 2, as IAB's language files give most purposes. */
export const ILLUSTRATION = 'A car company shows an advert for its new model to people who read about cars.';

/**
 * The vendor list slice as the service would serve it: the test list, its declarations in
 * `language`, and an illustration on purpose 2.
 */
export function sliceFor(language: string) {
  const list = buildVendorList();
  const slice =
    language === 'en'
      ? list
      : { ...list, ...buildLanguageFile(language, { version: list.vendorListVersion }) };
  (slice.purposes['2'] as { illustrations: string[] }).illustrations = [ILLUSTRATION];
  return slice;
}

export interface LayersPageOptions {
  language?: string;
  view?: 'banner' | 'customize';
  previous?: TcfChoice | null;
  config?: SiteConfig;
}

/** Records LCP entries (and whether each is inside the consent layers) and layout shifts. */
const OBSERVERS = `<script>
window.lcp = []; window.shifts = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.lcp.push({ size: e.size, id: e.element && e.element.id, inLayers: !!(e.element && e.element.closest('[data-consent-banner]')), tag: e.element && e.element.tagName }); }).observe({ type: 'largest-contentful-paint', buffered: true });
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.shifts.push({ value: e.value, recent: e.hadRecentInput }); }).observe({ type: 'layout-shift', buffered: true });
</script>`;

/**
 * A page with real content (a hero heading and paragraph, as a publisher's article starts), with
 * `head` (the SDK's snippet, or the test bundle) and `bodyEnd` added, and observers of LCP entries
 * and layout shifts.
 */
export function heroPage(language: string, head: string, bodyEnd = ''): string {
  return `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Daily News</title>
${OBSERVERS}
${head}
</head><body style="margin:0;font-family:Georgia,serif">
<header style="padding:24px 32px;background:#123;color:#fff"><a href="#" style="color:#fff">Daily News</a></header>
<main style="padding:32px;max-width:900px">
<h1 id="hero-title" style="font-size:44px;line-height:1.15;margin:0 0 16px">City council approves the new riverside park after a decade of debate</h1>
<p id="hero-text" style="font-size:20px;line-height:1.5">The park will open next spring with playgrounds, a cycling path along the water and a weekly farmers' market. Residents who campaigned for it since 2015 gathered outside the town hall to celebrate the vote, which passed by a wide margin.</p>
<p>More stories below.</p>
</main>
${bodyEnd}
</body></html>`;
}

/**
 * The hero page opening the layers from the test bundle as soon as its body is parsed: the
 * harshest case for LCP, where the layers paint in the same frame as the page's own content.
 */
export function layersPage(bundle: string, options: LayersPageOptions = {}): string {
  const language = options.language ?? 'en';
  const start = {
    list: sliceFor(language),
    config: options.config ?? CONFIG,
    language,
    view: options.view ?? 'banner',
    previous: options.previous ?? null,
  };
  const script = `<script>${bundle.replace(/<\/script/gi, '<\\/script')}</script>`;
  const call = `<script>startTcfLayers(${JSON.stringify(start).replace(/</g, '\\u003c')});</script>`;
  return heroPage(language, script, call);
}

/** LCP entries, layout shifts, and the layer's largest text block sized as LCP sizes elements. */
export interface PaintMeasure {
  lcp: Array<{ size: number; id: string; inLayers: boolean }>;
  shifts: Array<{ value: number }>;
  largestLayerBlock: number;
}

export const measurePaint = (page: Page): Promise<PaintMeasure> =>
  page.evaluate(`(() => {
    const blocks = Array.from(document.querySelectorAll(
      '[data-consent-tcf] h2, [data-consent-tcf] p, [data-consent-tcf] li, [data-consent-tcf] button'));
    const area = (el) => { const r = el.getBoundingClientRect();
      const w = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0));
      const h = Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)); return Math.round(w * h); };
    return { lcp: window.lcp, shifts: window.shifts.slice(), largestLayerBlock: Math.max(...blocks.map(area)) };
  })()`) as Promise<PaintMeasure>;

export interface LayersHarness {
  open(options?: LayersPageOptions & { width?: number }): Promise<Page>;
  choices(page: Page): Promise<Array<{ choice: TcfChoice; action: string }>>;
}

let pageCounter = 0;

export function layersHarness(
  browser: () => Browser,
  pages: () => PageServer,
  bundle: () => string,
): LayersHarness {
  return {
    async open(options = {}) {
      const context = await browser().newContext({ viewport: { width: options.width ?? 1280, height: 800 } });
      const page = await context.newPage();
      const url = `/tcf-layers-${++pageCounter}.html`;
      pages().setPage(url, layersPage(bundle(), options));
      await page.goto(`${pages().origin}${url}`);
      await page.locator('[data-consent-tcf]').waitFor();
      return page;
    },
    choices: (page) =>
      page.evaluate('window.tcfChoices') as Promise<Array<{ choice: TcfChoice; action: string }>>,
  };
}
