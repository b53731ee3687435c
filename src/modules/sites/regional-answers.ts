import { createByteLru } from '../../platform/cache/byte-lru.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RegionalConfig } from './regional-config.ts';

/** One site entry's config answers by region (regional-config.ts), held in the cache all sites share. */
export interface RegionalAnswers {
  get(region: string): RegionalConfig | undefined;
  set(region: string, answer: RegionalConfig): void;
}

/** What the cache tells the metrics: what it holds now, and each answer it dropped. */
export interface RegionalAnswersObserver {
  cacheBytes(bytes: number): void;
  evicted(): void;
}

/** The key, the entry and the map's slot beside the answer's bytes, roughly. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * `GET …/config` answers (and the config sdk.js carries) of every site and region together, within
 * CONFIG_CACHE_MB: a TCF channel with a thousand vendors answers about 90 KB per region, so a bound
 * per site in answers bounded nothing (four such sites seen from a thousand regions held 370 MB).
 * The least recently used go first, and any answer not asked for within CONFIG_CACHE_MAX_IDLE_SECONDS
 * is dropped, so what a flood of regions left behind is released once it is over. A dropped answer is
 * built again on its next request (a serialization and a hash).
 *
 * Each site entry of the site cache gets its own generation of keys: an entry made for a new config
 * version or another set of origins starts with no answer, and the answers of the one it replaced
 * are never asked for again, so they are the first to go.
 */
export function createRegionalAnswerCache(deps: {
  maxBytes: number;
  maxIdleMs: number;
  clock: Clock;
  observer?: RegionalAnswersObserver;
}) {
  const { observer } = deps;
  const held = createByteLru<RegionalConfig>({
    maxBytes: deps.maxBytes,
    maxIdleMs: deps.maxIdleMs,
    now: () => deps.clock.now().getTime(),
    onEvict: () => {
      observer?.evicted();
      observer?.cacheBytes(held.bytes);
    },
  });
  let generation = 0;
  return {
    /** A new site entry's answers: none yet. */
    forSite(): RegionalAnswers {
      const prefix = `${++generation}\n`;
      return {
        get: (region) => held.get(prefix + region),
        set(region, answer) {
          const bytes = answer.bytes.length + answer.etag.length + region.length + ENTRY_OVERHEAD_BYTES;
          held.set(prefix + region, answer, bytes);
          observer?.cacheBytes(held.bytes);
        },
      };
    },
    /** What the held answers weigh together (never above maxBytes). */
    get bytes() {
      return held.bytes;
    },
  };
}

export type RegionalAnswerCache = ReturnType<typeof createRegionalAnswerCache>;
