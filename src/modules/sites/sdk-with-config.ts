import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { BundleEncoding } from './bundle-encodings.ts';
import type { RegionalConfig } from './regional-config.ts';
import type { SdkBundle } from './sdk-bundle.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** sdk.js for one site and region: the config in front of the bundle, in one representation. */
export interface SdkWithConfig {
  body: Buffer;
  etag: string;
}

type Representation = BundleEncoding | 'identity';

/**
 * Built once per config answer (site, configVersion, region) and bundle, kept beside that answer: the
 * site cache drops both together when the config changes.
 */
const built = new WeakMap<RegionalConfig, Map<string, Promise<SdkWithConfig>>>();

/**
 * The statement put in front of sdk.js: the site's config for this visitor's region, where the SDK
 * finds it (sdk/src/index.ts) and starts at once, so a first-time visitor's banner needs no request
 * after sdk.js. The answer's bytes are the config's own (`{"data": …}`), so both carry the same config.
 * Keyed by site, so two sites' snippets on one page each find their own.
 */
export function configStatement(siteKey: string, config: RegionalConfig): Buffer {
  return Buffer.concat([
    Buffer.from(`${STATEMENT_START}${JSON.stringify(siteKey)}]=`),
    config.bytes,
    Buffer.from(STATEMENT_END),
  ]);
}

const STATEMENT_START = '(self.__consentServiceConfigs=self.__consentServiceConfigs||{})[';
const STATEMENT_END = '.data;\n';

/**
 * The config answer (`{"data": …}`, as `GET …/config` sends it) that an sdk.js body carries, or
 * null when it carries none: for readers of the script other than the SDK (the tracker scanner).
 */
export function carriedConfig(script: string): string | null {
  if (!script.startsWith(STATEMENT_START)) return null;
  const start = script.indexOf(']=');
  const end = script.indexOf(STATEMENT_END);
  return start > 0 && end > start ? script.slice(start + 2, end) : null;
}

/**
 * Compressed off the event loop (zlib's thread pool): a miss costs the first visitor of a region up
 * to about 20 ms for brotli at its highest quality, and no other request waits meanwhile.
 */
function encode(representation: Representation, source: Buffer): Promise<Buffer> {
  if (representation === 'identity') return Promise.resolve(source);
  if (representation === 'gzip') return gzipAsync(source, { level: 9 });
  return brotli(source, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
    },
  });
}

/**
 * sdk.js with the site's config for this region in front, as `representation` (the encoding the
 * request accepts, or identity). Its ETag names the config answer, the bundle and the
 * representation, so it changes when either changes.
 */
export function sdkWithConfig(
  siteKey: string,
  config: RegionalConfig,
  bundle: SdkBundle,
  representation: Representation,
): Promise<SdkWithConfig> {
  const byBundle = built.get(config) ?? new Map<string, Promise<SdkWithConfig>>();
  built.set(config, byBundle);
  const key = `${bundle.etag}:${representation}`;
  const cached = byBundle.get(key);
  if (cached) return cached;
  const configTag = config.etag.slice(1, -1);
  const bundleTag = bundle.etag.slice(1, -1);
  const suffix = representation === 'identity' ? '' : `-${representation}`;
  const source = Buffer.concat([configStatement(siteKey, config), Buffer.from(bundle.source, 'utf8')]);
  const answer = encode(representation, source).then((body) => ({
    body,
    etag: `"${configTag}.${bundleTag}${suffix}"`,
  }));
  // A failed compression is not kept: the next request tries again.
  answer.catch(() => byBundle.delete(key));
  byBundle.set(key, answer);
  return answer;
}
