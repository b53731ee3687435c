/**
 * Builds the browser SDK (sdk/src) with esbuild into minified IIFEs: sdk/dist/sdk.js, the file
 * `GET /v1/public/sites/:siteKey/sdk.js` serves, and one bundle per lazily loaded piece
 * (sdk/src/bundle-urls.ts): gpp.js (sdk/src/gpp, the IAB GPP CMP API, larger than the SDK's whole
 * budget), tcf.js (sdk/src/tcf, the IAB TCF CMP API and its two layers), notice.js, handoff.js,
 * import.js, identity.js and debug.js (the developer panel, test channels only), which `…/<piece>.js` serves and the SDK loads only where they apply.
 * src/modules/sites/sdk-bundle.ts reads them. package.json runs this on `postinstall`, and on
 * `prestart` with `--if-changed` (a build only when sdk/src changed since the last one), so
 * `npm install && npm start` serves the current source with no extra step; `npm run build:sdk` runs
 * it by hand, and the browser tests run it before they start the service.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import {
  compress,
  contentVersion,
  ENCODING_SUFFIX,
  ENCODINGS,
} from '../src/platform/http/bundle-encodings.ts';
import type { Piece } from './src/bundle-urls.ts';

const SDK_DIR = path.dirname(fileURLToPath(import.meta.url));
export const SDK_ENTRY = path.join(SDK_DIR, 'src', 'index.ts');
export const SDK_BUNDLE_FILE = path.join(SDK_DIR, 'dist', 'sdk.js');

/**
 * Each lazily loaded piece's entry, and the pieces it loads itself (tcf.js loads gpp.js).
 * `unversioned`: sdk.js names it by its plain URL, cached for minutes, not by a content hash:
 * the developer panel is for a site's developers, and a hash would be bytes of sdk.js that every
 * visitor pays for a year of caching that only a developer would have used.
 */
const PIECES: Record<Piece, { entry: string; loads: Piece[]; unversioned?: true }> = {
  gpp: { entry: path.join(SDK_DIR, 'src', 'gpp', 'index.ts'), loads: [] },
  tcf: { entry: path.join(SDK_DIR, 'src', 'tcf', 'index.ts'), loads: ['gpp'] },
  notice: { entry: path.join(SDK_DIR, 'src', 'notice', 'index.ts'), loads: [] },
  handoff: { entry: path.join(SDK_DIR, 'src', 'handoff', 'index.ts'), loads: [] },
  import: { entry: path.join(SDK_DIR, 'src', 'import', 'index.ts'), loads: [] },
  identity: { entry: path.join(SDK_DIR, 'src', 'identity', 'index.ts'), loads: [] },
  debug: { entry: path.join(SDK_DIR, 'src', 'debug', 'index.ts'), loads: [], unversioned: true },
};
export const PIECE_NAMES = Object.keys(PIECES) as Piece[];
export const pieceFile = (piece: Piece) => path.join(SDK_DIR, 'dist', `${piece}.js`);

/**
 * A bundle's text: ASCII only (esbuild escapes the rest), so the page's charset cannot garble it.
 * `define`: the versions of the bundles it loads (sdk/src/bundle-urls.ts).
 */
async function bundle(
  entry: string,
  define: Record<string, string> = {},
  plugins: Plugin[] = [],
): Promise<string> {
  // Loaded lazily: esbuild is a dev dependency here and a dependency of tsx, which runs the service.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    legalComments: 'none',
    define,
    plugins,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** The versions (content hashes) of `pieces`, for esbuild's `define` of sdk/src/bundle-urls.ts. */
const versionsOf = (built: Partial<Record<Piece, string>>, pieces: Piece[]) => ({
  __CONSENT_VERSIONS__: JSON.stringify(
    Object.fromEntries(pieces.map((piece) => [piece, contentVersion(built[piece] as string)])),
  ),
});

/**
 * Every bundle: the pieces first, in the order their URLs need (a piece that loads another is built
 * after it, and given its version), then sdk.js, given every versioned piece's. `sdkPlugins`: esbuild plugins
 * for sdk.js alone (a test measures what a part of it weighs by replacing that part).
 */
export async function buildAll(
  sdkPlugins: Plugin[] = [],
): Promise<{ sdk: string; pieces: Record<Piece, string> }> {
  const built: Partial<Record<Piece, string>> = {};
  const pending = [...PIECE_NAMES];
  while (pending.length > 0) {
    const at = pending.findIndex((piece) => PIECES[piece].loads.every((loaded) => built[loaded]));
    const [piece] = pending.splice(at, 1);
    built[piece] = await bundle(PIECES[piece].entry, versionsOf(built, PIECES[piece].loads));
  }
  const named = PIECE_NAMES.filter((piece) => !PIECES[piece].unversioned);
  const sdk = await bundle(SDK_ENTRY, versionsOf(built, named), sdkPlugins);
  return { sdk, pieces: built as Record<Piece, string> };
}

export const buildSdk = async (): Promise<string> => (await buildAll()).sdk;
export const buildPiece = async (piece: Piece): Promise<string> => (await buildAll()).pieces[piece];

export interface BundleSize {
  file: string;
  bytes: number;
  gzipBytes: number;
  brBytes: number;
}

/** Writes a file; write-then-rename, so a server or test reading it never sees half. */
function writeWhole(file: string, content: string | Buffer) {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, content);
  fs.renameSync(temp, file);
}

/**
 * Writes one bundle and its brotli and gzip copies (`.br`, `.gz`), which the service sends to
 * browsers that accept them (src/platform/http/bundle-encodings.ts).
 */
function write(file: string, code: string): BundleSize {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const [br, gzip] = ENCODINGS.map((encoding) => compress(encoding, code));
  writeWhole(`${file}${ENCODING_SUFFIX.br}`, br);
  writeWhole(`${file}${ENCODING_SUFFIX.gzip}`, gzip);
  writeWhole(file, code);
  return { file, bytes: Buffer.byteLength(code), gzipBytes: gzip.length, brBytes: br.length };
}

/** Builds and writes every bundle (sdk.js and the pieces). */
export async function writeSdkBundle(): Promise<BundleSize[]> {
  const { sdk, pieces } = await buildAll();
  return [write(SDK_BUNDLE_FILE, sdk), ...PIECE_NAMES.map((piece) => write(pieceFile(piece), pieces[piece]))];
}

/** Where the hash of the sources the bundles were last built from is kept. */
const STAMP_FILE = path.join(SDK_DIR, 'dist', '.sources.sha256');

/** Every file the bundles are built from (sdk/src, this script, esbuild's version), hashed. */
async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  const files = (fs.readdirSync(path.join(SDK_DIR, 'src'), { recursive: true }) as string[])
    .map((name) => path.join(SDK_DIR, 'src', name))
    .filter((file) => fs.statSync(file).isFile())
    .sort();
  for (const file of [...files, fileURLToPath(import.meta.url)]) {
    hash.update(path.relative(SDK_DIR, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  hash.update((await import('esbuild')).version);
  return hash.digest('hex');
}

/**
 * `--if-changed` (npm start's prestart, and the test run's global setup): builds only when the
 * sources differ from the last build's, so a restart does not spend seconds rebuilding bundles that
 * are already current.
 */
export async function writeSdkBundleIfChanged(ifChanged: boolean): Promise<BundleSize[] | null> {
  const hash = await sourcesHash();
  const current =
    [SDK_BUNDLE_FILE, ...PIECE_NAMES.map(pieceFile), STAMP_FILE].every((file) => fs.existsSync(file)) &&
    fs.readFileSync(STAMP_FILE, 'utf8') === hash;
  if (ifChanged && current) return null;
  const sizes = await writeSdkBundle();
  fs.writeFileSync(STAMP_FILE, hash);
  return sizes;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeSdkBundleIfChanged(process.argv.includes('--if-changed')).then(
    (sizes) => {
      if (sizes === null) {
        console.log('sdk/dist is up to date with sdk/src');
        return;
      }
      for (const { file, bytes, gzipBytes, brBytes } of sizes) {
        console.log(
          `${path.relative(process.cwd(), file)}: ${bytes} bytes, ${gzipBytes} gzipped, ${brBytes} brotli`,
        );
      }
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
