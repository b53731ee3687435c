import { pieceUrl } from './bundle-urls.ts';
import { loadBundle } from './load-bundle.ts';
import { answerTcf } from './tcf-answers.ts';
import type { SiteConfig, TcfHandle } from './types.ts';

/** How long the SDK waits for tcf.js and its vendor list before the CMP says it is in error. */
export const TCF_TIMEOUT_MS = 8000;

/** What tcf.js is started with (sdk/src/tcf/index.ts): the visitor's config and language. */
export interface TcfStart {
  /** `…/v1/public/sites/<siteKey>`: the service's address for this site. */
  site: string;
  siteKey: string;
  config: SiteConfig;
  language: string;
}

type Registered = { start(ctx: TcfStart): Promise<TcfHandle> };
type TcfApi = (command: string, version: number, callback: () => void, value: boolean) => void;

/**
 * Loads tcf.js from the service (the only host the SDK talks to) for a visitor whose config has
 * `tcf` (a TCF channel, an opt-in region) and starts it; tcf.js then owns `__tcfapi` and the
 * visitor's choice. Outside opt-in regions a TCF channel's config has only `tcfCmp`, and the
 * SDK's own small CMP answers that GDPR does not apply (tcf-answers.ts); on a channel without TCF
 * a stub left in the page is told so. Either way null at once (not a promise), so the SDK goes on
 * in the same task. Null too when tcf.js or its vendor list cannot be had in time: the CMP API says
 * it is in error (answering `ping` alone), and the SDK asks nothing and records nothing on this
 * page (consent.ts), since a decision without its TC string would be none to vendors.
 */
export function loadTcf(ctx: TcfStart): Promise<TcfHandle | null> | null {
  const win = window as unknown as { __tcfapi?: TcfApi };
  const { tcf, tcfCmp } = ctx.config;
  if (!tcf) {
    if (tcfCmp) answerTcf(tcfCmp, 'loaded');
    else if (win.__tcfapi) win.__tcfapi('setGdprApplies', 2, () => {}, false);
    return null;
  }
  return loadBundle(
    pieceUrl(ctx.site, 'tcf'),
    '__consentServiceTcf',
    TCF_TIMEOUT_MS,
    (registered: Registered) => registered.start(ctx),
  ).then((handle) => {
    if (handle) return handle;
    console.warn('[consent-service] tcf.js did not load: nothing is asked here; the next page tries again');
    if (tcfCmp) answerTcf(tcfCmp, 'error');
    return handle;
  });
}
