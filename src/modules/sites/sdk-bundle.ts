import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type BundleEncoding,
  compress,
  contentVersion,
  ENCODING_SUFFIX,
  ENCODINGS,
  holds,
} from '../../platform/http/bundle-encodings.ts';

/**
 * Where the browser SDK's built bundles are served from: `sdk/dist/sdk.js` and one file per lazily
 * loaded piece (`sdk/dist/gpp.js`, `tcf.js`, `notice.js`, `handoff.js`, `import.js`, `identity.js`, `debug.js`) at the
 * repository root (the SDK build, sdk/build.ts, writes them). Until one exists, a placeholder script
 * is served instead. Each is read once per process, on its first request: rebuild, then restart to
 * serve a new bundle.
 */
export const SDK_BUNDLE_PATH = fileURLToPath(new URL('../../../sdk/dist/sdk.js', import.meta.url));
const PLACEHOLDER_PATH = fileURLToPath(new URL('./sdk-placeholder.js', import.meta.url));

/** The SDK's lazily loaded pieces, each served as `…/<piece>.js` (sdk/src/bundle-urls.ts). */
export const SDK_PIECES = ['gpp', 'tcf', 'notice', 'handoff', 'import', 'identity', 'debug'] as const;
export type SdkPiece = (typeof SDK_PIECES)[number];
const piecePath = (piece: SdkPiece) =>
  fileURLToPath(new URL(`../../../sdk/dist/${piece}.js`, import.meta.url));

/**
 * A piece not built registers nothing, so the SDK's loader gives up after its timeout and the page
 * goes on without it (without gpp.js the snippet's stub keeps answering as a stub; without tcf.js
 * the CMP API says it is in error).
 */
const piecePlaceholder = (piece: SdkPiece) =>
  `/* consent-service: ${piece}.js is not built (npm run build:sdk) */\n`;

export interface SdkBundle {
  source: string;
  etag: string;
  /** The version in its immutable URL (`?v=`), which the bundles that load it name. */
  version: string;
  /** Whether this is the real bundle (false: the placeholder). */
  built: boolean;
  /** The bundle compressed, with its own ETag (a strong ETag names one representation). */
  encoded: Record<BundleEncoding, { body: Buffer; etag: string }>;
}

/** The build's precompressed copy when it holds this very source; else compressed here, once. */
function encodedCopy(path: string, encoding: BundleEncoding, source: string): Buffer {
  const file = `${path}${ENCODING_SUFFIX[encoding]}`;
  if (fs.existsSync(file)) {
    const copy = fs.readFileSync(file);
    if (holds(encoding, copy, source)) return copy;
  }
  return compress(encoding, source);
}

const loaded = new Map<string, SdkBundle>();

function read(path: string, placeholder: () => string): SdkBundle {
  const cached = loaded.get(path);
  if (cached) return cached;
  const built = fs.existsSync(path);
  const source = built ? fs.readFileSync(path, 'utf8') : placeholder();
  const hash = createHash('sha256').update(source).digest('base64url').slice(0, 27);
  const encoded = Object.fromEntries(
    ENCODINGS.map((encoding) => [
      encoding,
      { body: encodedCopy(path, encoding, source), etag: `"${hash}-${encoding}"` },
    ]),
  ) as SdkBundle['encoded'];
  const bundle = { source, etag: `"${hash}"`, version: contentVersion(source), built, encoded };
  loaded.set(path, bundle);
  return bundle;
}

/** The SDK every page loads (`…/sdk.js`). */
export const sdkBundle = (): SdkBundle =>
  read(SDK_BUNDLE_PATH, () => fs.readFileSync(PLACEHOLDER_PATH, 'utf8'));

/** A lazily loaded piece of the SDK (`…/gpp.js`, `…/tcf.js`, …). */
export const pieceBundle = (piece: SdkPiece): SdkBundle =>
  read(piecePath(piece), () => piecePlaceholder(piece));
