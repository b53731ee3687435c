/**
 * Builds the browser SDK (sdk/src) with esbuild into three minified IIFEs: sdk/dist/sdk.js, the file
 * `GET /v1/public/sites/:siteKey/sdk.js` serves; sdk/dist/gpp.js (sdk/src/gpp), the IAB GPP CMP
 * API that `…/gpp.js` serves and the SDK loads only for US opt-out visitors (it is larger than the
 * SDK's whole budget); and sdk/dist/tcf.js (sdk/src/tcf), the IAB TCF CMP API and its two layers,
 * which `…/tcf.js` serves and the SDK loads only for opt-in visitors of TCF channels.
 * src/modules/sites/sdk-bundle.ts reads them. package.json runs this on `postinstall`, and on
 * `prestart` with `--if-changed` (a build only when sdk/src changed since the last one), so
 * `npm install && npm start` serves the current source with no extra step; `npm run build:sdk` runs
 * it by hand, and the browser tests run it before they start the service.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  compress,
  contentVersion,
  ENCODING_SUFFIX,
  ENCODINGS,
} from '../src/platform/http/bundle-encodings.ts';

const SDK_DIR = path.dirname(fileURLToPath(import.meta.url));
export const SDK_ENTRY = path.join(SDK_DIR, 'src', 'index.ts');
export const SDK_BUNDLE_FILE = path.join(SDK_DIR, 'dist', 'sdk.js');
export const GPP_ENTRY = path.join(SDK_DIR, 'src', 'gpp', 'index.ts');
export const GPP_BUNDLE_FILE = path.join(SDK_DIR, 'dist', 'gpp.js');
export const TCF_ENTRY = path.join(SDK_DIR, 'src', 'tcf', 'index.ts');
export const TCF_BUNDLE_FILE = path.join(SDK_DIR, 'dist', 'tcf.js');

/**
 * A bundle's text: ASCII only (esbuild escapes the rest), so the page's charset cannot garble it.
 * `define`: the versions of the bundles it loads (sdk/src/bundle-urls.ts).
 */
async function bundle(entry: string, define: Record<string, string> = {}): Promise<string> {
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
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

const versionOf = (source: string) => JSON.stringify(contentVersion(source));

/**
 * The three bundles, in the order their URLs need: gpp.js first, then tcf.js (which loads gpp.js),
 * then sdk.js (which loads both), each given the versions of those it loads.
 */
export async function buildAll(): Promise<{ sdk: string; gpp: string; tcf: string }> {
  const gpp = await bundle(GPP_ENTRY);
  const tcf = await bundle(TCF_ENTRY, { __CONSENT_GPP_VERSION__: versionOf(gpp) });
  const sdk = await bundle(SDK_ENTRY, {
    __CONSENT_GPP_VERSION__: versionOf(gpp),
    __CONSENT_TCF_VERSION__: versionOf(tcf),
  });
  return { sdk, gpp, tcf };
}

export const buildSdk = async (): Promise<string> => (await buildAll()).sdk;
export const buildGpp = (): Promise<string> => bundle(GPP_ENTRY);
export const buildTcf = async (): Promise<string> => (await buildAll()).tcf;

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

/** Builds and writes the three bundles (sdk.js, gpp.js, tcf.js). */
export async function writeSdkBundle(): Promise<BundleSize[]> {
  const { sdk, gpp, tcf } = await buildAll();
  return [write(SDK_BUNDLE_FILE, sdk), write(GPP_BUNDLE_FILE, gpp), write(TCF_BUNDLE_FILE, tcf)];
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
    fs.existsSync(SDK_BUNDLE_FILE) &&
    fs.existsSync(GPP_BUNDLE_FILE) &&
    fs.existsSync(TCF_BUNDLE_FILE) &&
    fs.existsSync(STAMP_FILE) &&
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
