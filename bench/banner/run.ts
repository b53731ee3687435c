/**
 * What a consent banner costs a page's Core Web Vitals, ours against its peers:
 *
 *   npx tsx bench/banner/run.ts [--runs 5] [--before DIR] [--out bench/results/banner.json]
 *
 * Serves one article page without a banner, with our snippet (from this checkout's service, and from
 * `--before`'s if given), with vanilla-cookieconsent and with Klaro, and runs Lighthouse on each in
 * the mobile and desktop presets, the variants in a rotating order every round. See README.md here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine } from '../lib/report.ts';
import { articlePage, HERO_PATH, heroPng } from './article.ts';
import { type Chrome, type Deps, ensureInstalled, loadDeps, MODULES, pinned } from './deps.ts';
import { measure, type Preset } from './measure.ts';
import { startPageServer } from './page-server.ts';
import { type BannerInstall, cookieconsent, klaro } from './peers.ts';
import {
  bannerRequests,
  comparisons,
  NO_BANNER,
  type Sample,
  type Summary,
  summarize,
  table,
} from './report.ts';
import { type BannerService, startBannerService } from './service.ts';
import { checkBannersShow } from './visible.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    before: { type: 'string' },
    out: { type: 'string', default: path.join(ROOT, 'bench/results/banner.json') },
  },
});
const runs = Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number ≥ 1');
const CHROME_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';
const PRESETS: Preset[] = ['mobile', 'desktop'];
const SHOTS_DIR = path.join(ROOT, 'test-results/bench-banner');
const say = (line: string) => process.stderr.write(`bench/banner: ${line}\n`);

ensureInstalled(say);
const deps = await loadDeps();
const pages = await startPageServer();
pages.set(HERO_PATH, { type: 'image/png', body: heroPng() });
const services: BannerService[] = [];
let chrome: Chrome | undefined;

/** The variants, each an article page on the page server; ours from the snippet, pasted as is. */
async function variants(): Promise<{ name: string; url: string }[]> {
  const installs: [string, BannerInstall][] = [[NO_BANNER, { head: '', assets: new Map() }]];
  const ours = await startBannerService(ROOT, pages.origin);
  services.push(ours);
  installs.push(['ours', { head: ours.snippet, assets: new Map() }]);
  if (flags.before) {
    const before = await startBannerService(path.resolve(flags.before), pages.origin);
    services.push(before);
    installs.push(['ours (before)', { head: before.snippet, assets: new Map() }]);
  }
  installs.push(['cookieconsent', cookieconsent(MODULES)], ['Klaro', klaro(MODULES)]);
  return installs.map(([name, install], i) => {
    for (const [file, asset] of install.assets) pages.set(file, asset);
    const page = `/article-${i}.html`;
    pages.set(page, { type: 'text/html; charset=utf-8', body: Buffer.from(articlePage(install.head)) });
    return { name, url: `${pages.origin}${page}` };
  });
}

/** The checkout's commit, and whether its service or SDK differ from it (the bench serves the working tree). */
function checkout(root: string): { commit: string; uncommitted: boolean } | null {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    return {
      commit: git('rev-parse', 'HEAD'),
      uncommitted: git('status', '--porcelain', '--', 'src', 'sdk') !== '',
    };
  } catch {
    return null; // not a git checkout (an exported tree, say)
  }
}

/** What Lighthouse saw at the end of the first round's run, beside the check's screenshots. */
function keepScreenshot(variant: string, preset: Preset, dataUrl: string | undefined) {
  const base64 = dataUrl?.split(',')[1];
  if (!base64) return;
  const file = path.join(SHOTS_DIR, `lighthouse-${variant.replace(/\W+/g, '-')}-${preset}.jpg`);
  fs.writeFileSync(file, Buffer.from(base64, 'base64'));
}

async function rounds(list: { name: string; url: string }[], deps: Deps, port: number): Promise<Sample[]> {
  // One unrecorded pass first: the services' first requests (cold code, bundles read once) are not a visitor's.
  for (const v of list) await measure(deps, port, v.url, 'mobile');
  const samples: Sample[] = [];
  for (let round = 0; round < runs; round++) {
    const order = [...list.slice(round % list.length), ...list.slice(0, round % list.length)];
    const presets = round % 2 ? [...PRESETS].reverse() : PRESETS;
    for (const preset of presets) {
      for (const v of order) {
        const measurement = await measure(deps, port, v.url, preset);
        if (round === 0) keepScreenshot(v.name, preset, measurement.screenshot);
        samples.push({
          variant: v.name,
          preset,
          round,
          measurement,
          banner: bannerRequests(measurement, pages.origin),
        });
        say(
          `round ${round + 1}/${runs} ${preset} ${v.name}: LCP ${Math.round(measurement.metrics.lcp)} ms, TBT ${Math.round(measurement.metrics.tbt)} ms`,
        );
      }
    }
  }
  return samples;
}

try {
  const list = await variants();
  say(
    `page server ${pages.origin}; services ${services.map((s) => s.baseUrl).join(', ')}; ${runs} runs per preset`,
  );
  await checkBannersShow(CHROME_PATH, list, SHOTS_DIR);
  say('every banner shows its title (screenshots in test-results/bench-banner/)');
  chrome = await deps.launchChrome({
    chromePath: CHROME_PATH,
    chromeFlags: ['--headless=new', '--no-sandbox'],
  });
  const startedAt = new Date().toISOString();
  const samples = await rounds(list, deps, chrome.port);
  const names = list.map((v) => v.name);
  const results = {} as Record<Preset, Summary[]>;
  const compared = {} as Record<Preset, string[]>;
  for (const preset of PRESETS) {
    results[preset] = summarize(samples, preset, names);
    compared[preset] = comparisons(results[preset]);
    process.stdout.write(`\n${table(preset, results[preset])}\n\n${compared[preset].join('\n')}\n`);
  }
  const chromium = execFileSync(CHROME_PATH, ['--version'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  fs.mkdirSync(path.dirname(flags.out!), { recursive: true });
  fs.writeFileSync(
    flags.out!,
    `${JSON.stringify(
      {
        startedAt,
        finishedAt: new Date().toISOString(),
        machine: { ...machine(), chromium },
        checkouts: {
          ours: checkout(ROOT),
          before: flags.before ? checkout(path.resolve(flags.before)) : null,
        },
        packages: pinned(),
        settings: {
          runs,
          presets: PRESETS,
          before: flags.before ?? null,
          throttling: 'Lighthouse default (simulated)',
        },
        results,
        comparisons: compared,
        samples: samples.map(({ measurement, ...s }) => ({
          ...s,
          metrics: measurement.metrics,
          lcpElement: measurement.lcpElement,
        })),
      },
      null,
      2,
    )}\n`,
  );
  say(`wrote ${path.relative(ROOT, flags.out!)}`);
} finally {
  await chrome?.kill();
  for (const service of services) await service.stop();
  await pages.close();
}
