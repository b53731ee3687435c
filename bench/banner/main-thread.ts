/**
 * What our banner costs the main thread, before and after, from Chromium's own
 * trace. `npx tsx bench/banner/main-thread.ts --before <checkout> [--runs 5]` serves the bench's
 * article with the snippet of each checkout's service and loads it in Chromium with the CPU slowed
 * 4× (Lighthouse's mobile preset), tracing the renderer. For each load it reports:
 *
 * - tasks: the main-thread tasks that ran SDK code (its script evaluated, or a function of it
 *   called), with their durations;
 * - blocking: their time over 50 ms, summed (what they add to Total Blocking Time);
 * - banner: when the banner element was inserted, from the navigation's start;
 * - requests: the requests to the service before the banner was inserted.
 *
 * Medians over the runs; the two checkouts alternate, so drift on a shared machine is spread.
 * `--breakdown` prints what each SDK task spent its time on. A task counts as the SDK's when its
 * script ran or one of its functions was called from the event loop in it; a promise continuation
 * (the old SDK drew its banner in one, when the config fetch resolved) is not attributed, so a
 * checkout that draws that way shows fewer tasks than it runs.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { articlePage, HERO_PATH, heroPng } from './article.ts';
import { startPageServer } from './page-server.ts';
import { median } from './report.ts';
import { type BannerService, startBannerService } from './service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    runs: { type: 'string', default: '5' },
    // Also print, for each SDK task, the longest trace events inside it (what made it long).
    breakdown: { type: 'boolean', default: false },
  },
});

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { data?: { url?: string; frame?: string } };
}

interface Load {
  tasks: number[];
  blockingMs: number;
  bannerMs: number;
  requestsBeforeBanner: number;
}

const WATCH_BANNER = `new MutationObserver((_, o) => {
  if (document.querySelector('[data-consent-banner]')) { window.__bannerAt = performance.now(); o.disconnect(); }
}).observe(document, { childList: true, subtree: true });`;

/** The renderer main thread's tasks that ran SDK code, in ms. */
function sdkTasks(events: TraceEvent[], serviceUrl: string): number[] {
  const main = events.find((e) => e.name === 'thread_name' && (e as any).args?.name === 'CrRendererMain');
  const onMain = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  const tasks = onMain.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask');
  const sdkWork = onMain.filter(
    (e) =>
      (e.name === 'EvaluateScript' || e.name === 'FunctionCall' || e.name === 'v8.compile') &&
      e.args?.data?.url?.startsWith(serviceUrl),
  );
  const found = tasks.filter((task) =>
    sdkWork.some((w) => w.ts >= task.ts && w.ts < task.ts + (task.dur ?? 0)),
  );
  if (flags.breakdown) {
    for (const task of found) {
      const inside = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts < task.ts + (task.dur ?? 0));
      const top = inside
        .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
        .slice(0, 8)
        .map(
          (e) =>
            `${e.name}${e.args?.data?.url ? `(${e.args.data.url.split('/').pop()})` : ''} ${((e.dur ?? 0) / 1000).toFixed(1)}`,
        );
      console.error(`task ${((task.dur ?? 0) / 1000).toFixed(1)} ms: ${top.join('; ')}`);
    }
  }
  return found.map((task) => (task.dur ?? 0) / 1000);
}

async function loadOnce(page: Page, url: string, serviceUrl: string): Promise<Load> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const browser = page.context().browser()!;
  await browser.startTracing(page, {
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'],
  });
  const toService: number[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(serviceUrl)) toService.push(Date.now());
  });
  const started = Date.now();
  await page.goto(url);
  await page.waitForFunction('window.__bannerAt !== undefined', undefined, { timeout: 30_000 });
  const bannerMs = (await page.evaluate('window.__bannerAt')) as number;
  await page.waitForTimeout(1500); // the idle work after the banner (the impression) into the trace
  const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
  const tasks = sdkTasks(trace.traceEvents, serviceUrl);
  const bannerAtWall = started + bannerMs;
  return {
    tasks,
    blockingMs: tasks.reduce((sum, ms) => sum + Math.max(0, ms - 50), 0),
    bannerMs,
    requestsBeforeBanner: toService.filter((at) => at <= bannerAtWall).length,
  };
}

const pages = await startPageServer();
pages.set(HERO_PATH, { type: 'image/png', body: heroPng() });
const sides: Array<{ name: string; service: BannerService; url: string }> = [];
for (const [name, root] of [
  ['after', ROOT],
  ...(flags.before ? [['before', path.resolve(flags.before)]] : []),
] as Array<[string, string]>) {
  const service = await startBannerService(root, pages.origin);
  const file = `/article-${name}.html`;
  pages.set(file, { type: 'text/html; charset=utf-8', body: Buffer.from(articlePage(service.snippet)) });
  sides.push({ name, service, url: `${pages.origin}${file}` });
}
const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const loads = new Map<string, Load[]>(sides.map((s) => [s.name, []]));
try {
  const runs = Number(flags.runs);
  for (let round = -1; round < runs; round++) {
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      // A first-time visitor: a fresh context each load (no cookie, no HTTP cache), at a phone's width.
      const context = await browser.newContext({ viewport: { width: 412, height: 823 }, locale: 'en-US' });
      await context.addInitScript(WATCH_BANNER);
      const load = await loadOnce(await context.newPage(), side.url, side.service.baseUrl);
      if (round >= 0) loads.get(side.name)!.push(load);
      await context.close();
    }
  }
} finally {
  await browser.close();
  for (const side of sides) await side.service.stop();
  await pages.close();
}

console.log(
  '| checkout | SDK tasks (median count) | their durations, ms (median run) | blocking over 50 ms | banner inserted at | requests to the service before it |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [name, runs] of loads) {
  const byBlocking = [...runs].sort((a, b) => a.blockingMs - b.blockingMs);
  const mid = byBlocking[Math.floor(byBlocking.length / 2)];
  console.log(
    `| ${name} | ${median(runs.map((r) => r.tasks.length))} | ${mid.tasks.map((t) => t.toFixed(0)).join(', ')} | ${median(runs.map((r) => r.blockingMs)).toFixed(0)} ms | ${median(runs.map((r) => r.bannerMs)).toFixed(0)} ms | ${median(runs.map((r) => r.requestsBeforeBanner))} |`,
  );
}
