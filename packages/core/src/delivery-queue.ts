import type { PendingPost } from '../../../sdk/src/types.ts';
import { readPending, writePending } from './stored-state.ts';
import { randomId, type Transport } from './transport.ts';
import type { ConsentStorage } from './types.ts';

const MAX_BACKOFF_MS = 60_000;

/**
 * Delivers decisions to `…/preferences` in order, as the web SDK's sdk/src/sender.ts does: each
 * with an Idempotency-Key made once with the decision and stored with it, so every retry, now or
 * after the app restarts, is the same request and the service records it exactly once. Network
 * failures, 408, 409 (the same key still running), 429 and 5xx are retried with exponential
 * backoff; any other answer ends the attempt (retrying a refused decision would never succeed).
 *
 * The queue is written to storage before the first attempt, so a decision made just before the
 * app is killed is still delivered by the next client on the same storage.
 */
export function createDeliveryQueue(
  transport: Transport,
  storage: ConsentStorage,
  siteKey: string,
  identityToken: () => string | null,
) {
  let queue: PendingPost[] | null = null;
  const pending = async () => {
    queue ??= await readPending(storage, siteKey);
    return queue;
  };
  let chain: Promise<boolean> = Promise.resolve(true);
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  /** true: done with this item (delivered, or refused for good); false: retry later. */
  async function send(item: PendingPost): Promise<boolean> {
    // The account's decision carries the token at hand now; the token itself is never stored.
    const token = item.account ? identityToken() : null;
    try {
      const body = token ? { ...item.body, identityToken: token } : item.body;
      const res = await transport.send('preferences', 'POST', body, { 'Idempotency-Key': item.key });
      if (res.status === 401 && token) {
        // The token expired meanwhile: the decision is still this device's, recorded as such under
        // a new key (a key names one body).
        delete item.account;
        item.key = randomId(16);
        await writePending(storage, siteKey, await pending());
        return false;
      }
      if (res.ok) return true;
      if (res.status >= 500 || [408, 409, 429].includes(res.status)) return false;
      console.warn(`[consent-service] decision not recorded: HTTP ${res.status}`);
      return true;
    } catch {
      return false;
    }
  }

  async function drain(): Promise<boolean> {
    clearTimeout(timer);
    while ((await pending()).length) {
      const first = (await pending())[0];
      if (!(await send(first))) {
        if (!closed) {
          timer = setTimeout(() => void flush(), Math.min(MAX_BACKOFF_MS, 1000 * 2 ** failures++));
          // In Node, a retry waiting must not keep the process alive; elsewhere there is no unref.
          (timer as unknown as { unref?: () => void }).unref?.();
        }
        return false;
      }
      failures = 0;
      // Decisions enqueued while this one was on its way stay, behind it.
      queue = (await pending()).filter((item) => item !== first);
      await writePending(storage, siteKey, queue);
    }
    return true;
  }

  /**
   * One drain at a time, each after the one before: a decision enqueued while a drain is finishing
   * is still sent by the drain this call adds.
   */
  function flush(): Promise<boolean> {
    chain = chain.then(drain, drain);
    return chain;
  }

  return {
    flush,
    async enqueue(item: PendingPost) {
      queue = [...(await pending()), item];
      await writePending(storage, siteKey, queue);
      void flush();
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
