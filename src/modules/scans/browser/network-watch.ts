import type { BrowserContext, Request } from 'playwright-core';
import { sleep } from './deadlines.ts';
import type { PhaseObservations } from './observations.ts';

export interface NetworkWatch {
  /** Resolves once nothing was in flight for `quietMs`, or after `maxMs` at the latest. */
  quiet(quietMs: number, maxMs: number, stop: AbortSignal): Promise<void>;
}

/**
 * Records every http(s) request of the context (all pages and frames: iframes' documents,
 * scripts, images, fetches, …) and counts those in flight, which is what "the network went quiet
 * after the click" means: Playwright's networkidle only applies to a navigation.
 * Requests the scan aborts on purpose (`blockRequest`) are not the page's evidence and are skipped.
 */
export function watchNetwork(
  context: BrowserContext,
  observations: PhaseObservations,
  blockRequest?: (url: URL) => boolean,
): NetworkWatch {
  const inFlight = new Set<Request>();
  let lastChange = Date.now();
  const settled = (request: Request) => {
    if (inFlight.delete(request)) lastChange = Date.now();
  };
  context.on('request', (request) => {
    let url: URL;
    try {
      url = new URL(request.url());
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    if (blockRequest?.(url)) return;
    observations.addRequest(url, request.resourceType());
    inFlight.add(request);
    lastChange = Date.now();
  });
  context.on('requestfinished', settled);
  context.on('requestfailed', settled);

  return {
    async quiet(quietMs, maxMs, stop) {
      const until = Date.now() + maxMs;
      while (!stop.aborted && Date.now() < until) {
        const quietFor = Date.now() - lastChange;
        if (inFlight.size === 0 && quietFor >= quietMs) return;
        await sleep(Math.min(100, until - Date.now()), stop);
      }
    },
  };
}
