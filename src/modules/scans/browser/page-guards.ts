import type { BrowserContext, Page } from 'playwright-core';

/**
 * Runs before any script of the page, in every document of a scan profile: the top page, each
 * iframe (a fresh about:blank one included) and any window the page opens. It takes away the web
 * APIs that reach the network without the guard proxy.
 *
 * WebRTC: a peer connection sends STUN and TURN over UDP straight to the addresses the page
 * names (an internal one too), and Chromium's proxy settings cover TCP only. Without the
 * constructors a page cannot start one; feature detection (`typeof RTCPeerConnection`) then tells
 * it WebRTC is missing, as in a browser built without it. The launch flag
 * `--webrtc-ip-handling-policy=disable_non_proxied_udp` is the second line: it keeps ICE off UDP
 * even where a script still found a constructor.
 *
 * Workers do not get this script, and need none: they expose no WebRTC constructor.
 */
const NO_UDP_APIS = `(() => {
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (!/^(webkit)?RTC/.test(name)) continue;
    try { delete globalThis[name]; } catch {}
  }
})();`;

/**
 * No new windows: each is another document (and its memory) the scan neither asked for nor reads.
 * `window.open` answers null, as when a popup blocker stops it, and cannot be put back.
 */
const NO_WINDOWS = `(() => {
  try {
    Object.defineProperty(window, 'open', { value: () => null, writable: false, configurable: false });
  } catch {}
})();`;

/** Applies the guards to a fresh profile, before its first page opens. */
export async function guardContext(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: NO_UDP_APIS + NO_WINDOWS });
}

/**
 * Closes every page of the profile but `page`, as it opens: a window a link or form opened
 * (`target="_blank"`), which the init script's `window.open` does not cover. Call it once the
 * scan's own page is open.
 */
export function closeOtherPages(context: BrowserContext, page: Page): void {
  context.on('page', (opened) => {
    if (opened !== page) opened.close().catch(() => {});
  });
}
