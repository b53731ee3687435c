import { randomId, readPending, receiptUrl, writePending } from './storage.ts';
import type { PendingPost } from './types.ts';

const MAX_BACKOFF_MS = 60_000;

/**
 * Delivers decisions to `…/preferences` in order, each with its own Idempotency-Key that is made once
 * with the decision and kept with it (in localStorage), so every retry, in this page or after a reload,
 * is the same request and the service records it exactly once. Network failures, 408, 409 (the same
 * key still running), 429 and 5xx are retried with exponential backoff; other answers end the attempt.
 *
 * Through the channel's first-party path the 201 sets the decision cookie (`credentials:
 * 'same-origin'` lets the browser take it; to the service's own address it sends no cookie); a
 * decision not delivered calls `undelivered`, so the page keeps it itself until it is.
 *
 * The 201 of a delivered decision carries its receipt URL (a replay of the same key
 * answers the same 201, so a retry still gets it). It replaces the previous one once no later decision
 * is waiting: a queued decision has no receipt yet, and the previous one no longer describes the
 * visitor's choice, so `enqueue` clears it. The URL is a capability: it is never logged or sent on.
 */
export function createSender(
  endpoint: string,
  siteKey: string,
  identityToken: () => string | null = () => null,
  undelivered: () => void = () => {},
) {
  // Read from localStorage on first use (the idle flush, or a decision), not while the banner is drawn.
  let stored: PendingPost[] | null = null;
  const pending = () => {
    stored ??= readPending(siteKey);
    return stored;
  };
  let busy = false;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** The receipt URL of the decision `send` last delivered; null when refused or without one. */
  let receipt: string | null = null;
  async function send(item: PendingPost): Promise<boolean> {
    receipt = null;
    // The account's decision carries the token at hand now (never stored with the decision).
    const token = item.account ? identityToken() : null;
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': item.key },
        body: JSON.stringify(token ? { ...item.body, identityToken: token } : item.body),
        credentials: 'same-origin',
      });
    } catch {
      return false;
    }
    if (res.status === 401 && token) {
      // The token expired or was revoked meanwhile: the decision is still this device's, so it is
      // recorded as the device's (a new key: the body differs) rather than lost.
      console.warn('[consent-service] identity token not accepted; the decision is recorded for this device');
      delete item.account;
      item.key = randomId(16); // another request: a key names one body
      writePending(siteKey, pending());
      return false;
    }
    if (res.ok) {
      try {
        const url = (await res.json()).data.receipt.url;
        // Only a web address goes into the link's href (never, say, a javascript: URL).
        if (/^https?:/.test(url)) receipt = url;
      } catch {
        // Recorded all the same; this decision has no receipt to offer.
      }
      return true;
    }
    if (res.status >= 500 || [408, 409, 429].includes(res.status)) return false;
    // Retrying a refused decision would never succeed; say why once and drop it.
    console.warn(`[consent-service] decision not recorded: HTTP ${res.status}`);
    return true;
  }

  async function flush(): Promise<void> {
    if (busy) return;
    busy = true;
    clearTimeout(timer);
    try {
      while (pending().length) {
        if (!(await send(pending()[0]))) {
          undelivered();
          timer = setTimeout(flush, Math.min(MAX_BACKOFF_MS, 1000 * 2 ** failures++));
          return;
        }
        failures = 0;
        stored = pending().slice(1);
        writePending(siteKey, stored);
        if (!stored.length) receiptUrl(siteKey, receipt);
      }
    } finally {
      busy = false;
    }
  }

  if (typeof addEventListener === 'function') addEventListener('online', () => void flush());

  return {
    flush,
    enqueue(item: PendingPost) {
      stored = [...pending(), item];
      writePending(siteKey, stored);
      receiptUrl(siteKey, null);
      void flush();
    },
  };
}
