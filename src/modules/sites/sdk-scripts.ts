import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { createByteLru } from '../../platform/cache/byte-lru.ts';
import type { Clock } from '../../platform/clock.ts';
import type { BundleEncoding } from '../../platform/http/bundle-encodings.ts';
import { notModified } from '../../platform/http/conditional.ts';
import type { RegionalConfig } from './regional-config.ts';
import type { SdkBundle } from './sdk-bundle.ts';
import { configStatement } from './sdk-with-config.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type Representation = BundleEncoding | 'identity';
/** best: the highest brotli quality (and gzip's); fast: brotli past its budget (see below). */
export type Quality = 'best' | 'fast';

/** One representation of sdk.js for a site and config; body null: the request holds it already (304). */
export interface SdkScript {
  etag: string;
  body: Buffer | null;
}

interface Held {
  etag: string;
  body: Buffer;
  quality: Quality;
}

/** What the cache tells the metrics (a compression, its size now, an entry dropped for room). */
export interface SdkScriptsObserver {
  compressed(encoding: BundleEncoding, quality: Quality): void;
  cacheBytes(bytes: number): void;
  evicted(): void;
}

/**
 * Brotli at its highest quality costs 13–30 ms of CPU for sdk.js with a config in front (zlib's
 * thread pool, so no request waits on the event loop); at quality 5 under 1 ms, for about 7% more
 * bytes. Every config is one region's (its body names the region), so a flood of distinct regions
 * is a flood of distinct configs: this many best-quality compressions a minute (a token bucket on
 * the app's clock), and past them the fast quality, which a later request upgrades within the budget.
 */
const BEST_BROTLI_PER_MINUTE = 60;
const FAST_BROTLI_QUALITY = 5;
/** The key, the entry and the map's slot beside the body, roughly: so many tiny entries still weigh. */
const ENTRY_OVERHEAD_BYTES = 256;

function compress(encoding: BundleEncoding, quality: Quality, source: Buffer): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(source, { level: 9 });
  const params = {
    [constants.BROTLI_PARAM_QUALITY]: quality === 'best' ? constants.BROTLI_MAX_QUALITY : FAST_BROTLI_QUALITY,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
  };
  // A window just over the source (not the default 4 MB) loses nothing and allocates far less: the
  // fast quality is the one used in bursts, where the encoders' memory adds up.
  if (quality === 'fast')
    params[constants.BROTLI_PARAM_LGWIN] = Math.min(
      24,
      Math.max(16, Math.ceil(Math.log2(source.length + 16))),
    );
  return brotli(source, { params });
}

/** Tokens for best-quality compressions: `perMinute` at most in a burst, refilled evenly. */
function bestQualityBudget(clock: Clock, perMinute: number) {
  let tokens = perMinute;
  let at = clock.now().getTime();
  return {
    take(): boolean {
      const now = clock.now().getTime();
      tokens = Math.min(perMinute, tokens + ((now - at) / 60_000) * perMinute);
      at = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}

/**
 * sdk.js bodies (the site's config for a region in front of the bundle, sdk-with-config.ts), for all
 * sites together. Keyed by what the body is made of: the site key, the hash of the config's bytes
 * (its ETag), the bundle's and the encoding; so a region whose config another region or an earlier
 * cache entry of the site already has (the site cache reloads on every channel change) reuses it, and
 * each body is compressed once however many requests ask at the same moment (they share the
 * compression). Bounded in bytes (SDK_CACHE_MB): the least recently used bodies go first. The body as
 * it is (no encoding) is not kept: joining the two parts costs less than keeping them.
 */
export function createSdkScripts(deps: { maxBytes: number; clock: Clock; observer?: SdkScriptsObserver }) {
  const { observer } = deps;
  const held = createByteLru<Held>({ maxBytes: deps.maxBytes, onEvict: () => observer?.evicted() });
  const pending = new Map<string, Promise<Held>>();
  const budget = bestQualityBudget(deps.clock, BEST_BROTLI_PER_MINUTE);
  const bundleBytes = new WeakMap<SdkBundle, Buffer>();

  function source(siteKey: string, config: RegionalConfig, bundle: SdkBundle): Buffer {
    let bytes = bundleBytes.get(bundle);
    if (!bytes) {
      bytes = Buffer.from(bundle.source, 'utf8');
      bundleBytes.set(bundle, bytes);
    }
    return Buffer.concat([configStatement(siteKey, config), bytes]);
  }

  /**
   * Compresses once for every request that asks meanwhile (those waiting on `job`), and keeps the
   * result under `key`; a failure is not kept, so the next request tries again.
   */
  function build(key: string, job: string, made: () => Promise<Held>): Promise<Held> {
    const inFlight = pending.get(job);
    if (inFlight) return inFlight;
    const promise = made()
      .then((script) => {
        held.set(key, script, script.body.length + ENTRY_OVERHEAD_BYTES);
        observer?.cacheBytes(held.bytes);
        return script;
      })
      .finally(() => pending.delete(job));
    pending.set(job, promise);
    return promise;
  }

  async function compressed(
    encoding: BundleEncoding,
    quality: Quality,
    etag: string,
    source: () => Buffer,
  ): Promise<Held> {
    const output = await compress(encoding, quality, source());
    observer?.compressed(encoding, quality);
    // zlib may hand back a view of a larger output chunk (brotli: 10 KB of a 16 KB chunk): kept
    // as it is, the chunk would be held, and weigh more than the cache counts.
    const body = output.byteLength === output.buffer.byteLength ? output : Buffer.from(output);
    return { body, quality, etag };
  }

  return {
    /**
     * sdk.js for `config` as `representation`. Its ETag names the config (by hash), the bundle and
     * the representation; a fast brotli body has its own (`…-br-fast`), since its bytes differ. A
     * request that holds either brotli body gets a 304 without any compression (both decode to the
     * same script), except one holding the fast body while the best is held: it gets the best.
     */
    async answer(
      siteKey: string,
      config: RegionalConfig,
      bundle: SdkBundle,
      representation: Representation,
      ifNoneMatch: string | string[] | undefined,
    ): Promise<SdkScript> {
      const tag = `${config.etag.slice(1, -1)}.${bundle.etag.slice(1, -1)}`;
      if (representation === 'identity') {
        const etag = `"${tag}"`;
        return { etag, body: notModified(ifNoneMatch, etag) ? null : source(siteKey, config, bundle) };
      }
      const best = `"${tag}-${representation}"`;
      const fast = `"${tag}-${representation}-fast"`;
      const key = `${siteKey}\n${best}`;
      const cached = held.get(key);
      if (notModified(ifNoneMatch, best)) return { etag: best, body: null };
      if (notModified(ifNoneMatch, fast) && cached?.quality !== 'best') return { etag: fast, body: null };
      const made = () => source(siteKey, config, bundle);
      if (cached) {
        // A fast body asked for again: its best one, in the background, replaces it when done.
        const upgrade = `${key}\nbest`;
        if (cached.quality === 'fast' && !pending.has(upgrade) && budget.take())
          build(key, upgrade, () => compressed(representation, 'best', best, made)).catch(() => {});
        return cached;
      }
      return build(key, key, () => {
        const quality = representation === 'gzip' || budget.take() ? 'best' : 'fast';
        return compressed(representation, quality, quality === 'best' ? best : fast, made);
      });
    },
  };
}

export type SdkScripts = ReturnType<typeof createSdkScripts>;
