import { whenIdle } from './when.ts';

/**
 * Counts one banner (or notice) impression, in aggregates only: the body says which config and
 * language were shown and nothing else; no credentials, no Referer. Sent once the banner is painted
 * and the page is idle, so it never competes with the banner or the page's own content.
 *
 * A CORS-simple request: text/plain in `no-cors` mode needs no preflight (the service accepts a JSON
 * body as text/plain on this endpoint only), where application/json would cost an OPTIONS round trip
 * first. fetch with keepalive rather than sendBeacon: a beacon always sends credentials, and
 * keepalive also lets the request finish if the visitor leaves at once. Fire and forget: a lost
 * impression costs one count.
 */
export function sendImpression(url: string, body: { configVersion: number; language: string }) {
  const send = () =>
    fetch(url, {
      method: 'POST',
      mode: 'no-cors',
      keepalive: true,
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(body),
    }).catch(() => {});
  // After the next frame (the banner's), then when idle.
  requestAnimationFrame(() => whenIdle(send));
}
