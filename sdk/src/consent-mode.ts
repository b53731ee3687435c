import { CONSENT_MODE_SIGNALS } from './decisions.ts';

type Gtag = (...args: unknown[]) => void;

/**
 * Calls the page's `gtag` when it has one; otherwise queues the same call on `dataLayer` as an
 * `arguments` object, which is what gtag.js and Tag Manager read (an array would be ignored).
 */
function gtagCall(..._args: unknown[]): void {
  const w = window as unknown as { gtag?: Gtag; dataLayer?: unknown[] };
  if (typeof w.gtag === 'function') {
    w.gtag(..._args);
    return;
  }
  w.dataLayer = w.dataLayer || [];
  // biome-ignore lint/complexity/noArguments: gtag.js recognises queued commands by their Arguments type.
  w.dataLayer.push(arguments);
}

/** Before anything else runs: every signal denied until the visitor decides. */
export function setConsentDefaults(): void {
  const state: Record<string, string> = {};
  for (const signal of CONSENT_MODE_SIGNALS) state[signal] = 'denied';
  gtagCall('consent', 'default', state);
}

export function updateConsentMode(state: Record<string, string>): void {
  gtagCall('consent', 'update', state);
}
