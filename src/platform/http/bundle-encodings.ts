import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';

/**
 * The SDK's bundles travel compressed: brotli or gzip, whichever the browser accepts (brotli first:
 * sdk.js is about a fifth smaller in it than in gzip). Compressed once, at build time (sdk/build.ts
 * writes `<bundle>.br` and `<bundle>.gz` beside each bundle), at the highest levels, since every
 * visitor downloads the result; the service checks a precompressed file against its bundle before
 * serving it, and compresses in process when the file is missing or stale.
 */
export type BundleEncoding = 'br' | 'gzip';
export const ENCODINGS: BundleEncoding[] = ['br', 'gzip'];
/** The file suffix of each precompressed copy. */
export const ENCODING_SUFFIX: Record<BundleEncoding, string> = { br: '.br', gzip: '.gz' };

/**
 * The version of a bundle in its immutable URL (`…/gpp.js?v=<hash>`): the start of the SHA-256 of
 * its text, the same at build time (sdk/build.ts puts it in the bundles that load it) and in the
 * service (sdk-bundle.ts), which checks it before it lets a browser keep the answer for a year.
 */
export function contentVersion(source: string): string {
  return createHash('sha256').update(source).digest('base64url').slice(0, 16);
}

export function compress(encoding: BundleEncoding, source: string): Buffer {
  const input = Buffer.from(source, 'utf8');
  return encoding === 'br'
    ? brotliCompressSync(input, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: input.length,
        },
      })
    : gzipSync(input, { level: 9 });
}

/** Whether `compressed` is `source` in `encoding` (a precompressed file from the same build). */
export function holds(encoding: BundleEncoding, compressed: Buffer, source: string): boolean {
  try {
    const plain = encoding === 'br' ? brotliDecompressSync(compressed) : gunzipSync(compressed);
    return plain.equals(Buffer.from(source, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The encoding to send for an Accept-Encoding header: br, else gzip, when the header accepts it
 * (by name or `*`, with a q-value above 0); null: the bundle as it is.
 */
export function negotiate(acceptEncoding: string | undefined): BundleEncoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  return ENCODINGS.find((encoding) => weight(encoding) > 0) ?? null;
}
