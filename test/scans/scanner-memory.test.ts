import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBrowserScan, ScanFailure } from '../../src/modules/scans/browser/index.ts';
import { type BrowserMemory, browserMemory } from '../../src/modules/scans/browser/memory-watch.ts';
import { skipWith } from '../helpers/skip.ts';
import { browserSkipReason, CHROMIUM_PATH } from '../sdk/harness.ts';
import { expectBrowserGone } from './browser-processes.ts';
import { type FixtureSite, startFixtureSite } from './fixture-site.ts';

/**
 * A page that eats the scanner's memory: it opens windows and cross-site frames (each its own
 * renderer), and each document fills 200 MB of typed arrays and keeps them. Without a limit, one
 * scan of it holds over 2 GB; the test caps it there, so the machine is never at risk.
 */
const MB = 1024 * 1024;
const DOCUMENT_MB = 200;
const WINDOWS = 5;
const FRAMES = 5;

const HOG = `<script>
window.hog = [];
(function grow() {
  if (hog.length * 20 >= ${DOCUMENT_MB}) return;
  hog.push(new Uint8Array(20 * ${MB}).fill(hog.length + 1));
  setTimeout(grow, 10);
})();
</script>`;

describe.skipIf(skipWith(browserSkipReason))('a scanned page that eats memory', () => {
  let site: FixtureSite;
  let port = '';
  beforeAll(async () => {
    site = await startFixtureSite({
      page: () => `<!doctype html><html lang="en"><title>Hungry</title>
<script>for (let i = 0; i < ${WINDOWS}; i++) window.open('/hog?window=' + i, '_blank');</script>
${Array.from({ length: FRAMES }, (_, i) => `<iframe src="http://hog${i}.example:${port}/hog" title="frame ${i}"></iframe>`).join('\n')}`,
      routes: {
        '/hog': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<!doctype html><title>hog</title>${HOG}`);
        },
        // Windows three ways: window.open at load, and after the scanner's click both window.open
        // and a target=_blank link (a click gives the page the user activation popups need).
        '/windows': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<!doctype html><title>windows</title>
<a id="link" href="/popup?link" target="_blank">more</a>
<button type="button" data-consent-action="reject-all">Reject all</button>
<button type="button" data-consent-action="accept-all">Accept all</button>
<script>
  const report = (what) => fetch('/report?' + what).catch(() => {});
  report('load-open=' + window.open('/popup?load'));
  for (const button of document.querySelectorAll('button')) {
    button.addEventListener('click', () => {
      report('click-open=' + window.open('/popup?click'));
      document.getElementById('link').click();
    });
  }
</script>`);
        },
        '/popup': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(
            `<!doctype html><title>popup</title><script>setInterval(() => fetch('/report?popup-alive'), 100)</script>`,
          );
        },
        '/report': (_req, res) => {
          res.writeHead(204).end();
        },
      },
    });
    port = new URL(site.origin).port;
  });
  afterAll(() => site?.close());

  it('opens no window: window.open answers null, and a window a click opened is closed at once', async () => {
    site.siteHits.length = 0;
    const [page] = await runBrowserScan({
      urls: [`${site.origin}/windows`],
      chromiumPath: CHROMIUM_PATH,
      allowAddress: (ip) => ip === '127.0.0.1',
      pageTimeoutMs: 15_000,
      scanTimeoutMs: 110_000,
    });
    expect(page?.bannerFound).toEqual({ reject: true, accept: true });
    const reports = site.siteHits.filter((hit) => hit.startsWith('/report?'));
    const alive = reports.filter((r) => r === '/report?popup-alive').length;
    console.log(`windows page: ${alive} pings from link-opened windows`);
    expect(reports.filter((r) => r === '/report?load-open=null')).toHaveLength(3);
    expect(reports.filter((r) => r === '/report?click-open=null')).toHaveLength(2);
    expect(site.siteHits).not.toContain('/popup?load');
    expect(site.siteHits).not.toContain('/popup?click');
    // The link's window may start loading before it is closed, but does not live on: left open,
    // it would ping every 100 ms through each click phase's 1.5 to 4.5 s of settling.
    expect(alive).toBeLessThan(10);
  }, 120_000);

  it('fails the scan once the browser passes the memory limit, and stops the browser', async () => {
    let pid = 0;
    const peak: BrowserMemory = { bytes: 0, processes: 0 };
    let sampler: NodeJS.Timeout | undefined;
    const sample = async () => {
      const now = await browserMemory(pid);
      peak.bytes = Math.max(peak.bytes, now.bytes);
      peak.processes = Math.max(peak.processes, now.processes);
      sampler = setTimeout(sample, 100);
    };
    const started = Date.now();
    const outcome = await runBrowserScan({
      urls: [`${site.origin}/`],
      chromiumPath: CHROMIUM_PATH,
      // The hogN.example frames are other sites, on the fixture's address.
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      allowAddress: (ip) => ip === '127.0.0.1',
      pageTimeoutMs: 15_000,
      scanTimeoutMs: 110_000,
      memoryLimitMb: 400,
      onBrowserStarted: (browserPid) => {
        pid = browserPid;
        sample();
      },
    }).then(
      () => 'succeeded',
      (error: Error) => error,
    );
    clearTimeout(sampler);
    console.log(
      `memory-hungry page: ${outcome instanceof Error ? outcome.message : outcome} after ${Date.now() - started} ms; ` +
        `peak ${Math.round(peak.bytes / MB)} MB in ${peak.processes} processes`,
    );
    expect(outcome).toBeInstanceOf(ScanFailure);
    expect((outcome as Error).message).toBe(
      `The page ${site.origin}/ used more than 400 MB of memory in the scan's browser; the browser was stopped`,
    );
    await expectBrowserGone(pid);
  }, 120_000);
});

// store-independent: the scan browser's memory limit against a fixture site, no service
