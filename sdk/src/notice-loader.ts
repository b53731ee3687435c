import { pieceUrl } from './bundle-urls.ts';
import { loadBundle } from './load-bundle.ts';
import type { NoticeUi } from './notice/passive.ts';

/** How long the SDK waits for notice.js; without it the page runs on with the regime's defaults. */
const NOTICE_TIMEOUT_MS = 10_000;

/**
 * One SDK instance's notice, loaded on first use: the notice-only and opt-out UI is notice.js, which
 * visitors of opt-in regions (most of the SDK's weight budget) never load. The calls made before it
 * came are played in order once it has, so the notice ends in the state the last call asked for;
 * a hide with nothing shown yet loads nothing.
 */
export function lazyNotice(site: string): NoticeUi {
  let notice: NoticeUi | null = null;
  let loading: Promise<NoticeUi | null> | null = null;
  const calls: Array<(n: NoticeUi) => void> = [];
  const call = (fn: (n: NoticeUi) => void, load: boolean) => {
    if (notice) return fn(notice);
    if (!load && !loading) return;
    calls.push(fn);
    loading ||= loadBundle(
      pieceUrl(site, 'notice'),
      '__consentServiceNotice',
      NOTICE_TIMEOUT_MS,
      (create: () => NoticeUi) => create(),
    ).then((loaded) => {
      notice = loaded;
      for (const queued of calls.splice(0)) if (loaded) queued(loaded);
      return loaded;
    });
  };
  return {
    passive: (ctx) => call((n) => n.passive(ctx), true),
    hide: () => call((n) => n.hide(), false),
    hideChoicesLink: () => call((n) => n.hideChoicesLink(), false),
  };
}
