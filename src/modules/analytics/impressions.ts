import type { Store } from '../../platform/db/store.ts';
import { IMPRESSIONS_UPSERT } from './analytics.sql.ts';

/** Where an impression is counted: a day row's key; nothing about the visitor. */
export interface ImpressionKey {
  organizationId: string;
  environment: string;
  channelId: string;
  day: string;
  region: string | null;
  regime: string;
  configVersion: number;
  /** "web", or the app's X-Consent-Platform (docs/guides/apps.md). */
  platform: string;
}

/** How long counted impressions wait in memory before they are written together. */
export const IMPRESSION_FLUSH_MS = 5_000;

/**
 * Impressions counted in memory and written as one upsert every few seconds (one row per day key,
 * however many banners were shown): the public endpoint answers 204 without a database write. A
 * crash loses at most the last few seconds of impressions, never a decision (those are counted in
 * the consent write's own statement). The timer runs only while something waits, and is unref'd.
 */
export function createImpressionCounter(store: Store) {
  const pending = new Map<string, { key: ImpressionKey; n: number }>();
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();

  async function write(batch: Array<{ key: ImpressionKey; n: number }>) {
    const column = (f: (e: { key: ImpressionKey; n: number }) => string) => batch.map(f);
    const values = [
      column((e) => e.key.organizationId),
      column((e) => e.key.environment),
      column((e) => e.key.channelId),
      column((e) => e.key.day),
      column((e) => e.key.region ?? ''),
      column((e) => e.key.regime),
      column((e) => String(e.key.configVersion)),
      column((e) => e.key.platform),
      column((e) => String(e.n)),
    ];
    await store.statement({ name: null, text: IMPRESSIONS_UPSERT }, values);
  }

  const idOf = (key: ImpressionKey) =>
    [
      key.organizationId,
      key.channelId,
      key.day,
      key.region ?? '',
      key.regime,
      key.configVersion,
      key.platform,
    ].join('\u0000');

  function add(key: ImpressionKey, n: number) {
    const id = idOf(key);
    const entry = pending.get(id);
    if (entry) entry.n += n;
    else pending.set(id, { key, n });
    if (!timer) {
      timer = setTimeout(() => void counter.flush().catch(() => {}), IMPRESSION_FLUSH_MS);
      timer.unref();
    }
  }

  const counter = {
    count: (key: ImpressionKey) => add(key, 1),

    /** Writes what is counted (one statement); on failure the counts wait for the next flush. */
    flush(): Promise<void> {
      flushing = flushing
        .catch(() => {})
        .then(async () => {
          if (timer) clearTimeout(timer);
          timer = null;
          if (pending.size === 0) return;
          const batch = [...pending.values()];
          pending.clear();
          try {
            await write(batch);
          } catch (error) {
            for (const e of batch) add(e.key, e.n);
            throw error;
          }
        });
      return flushing;
    },
  };
  return counter;
}
