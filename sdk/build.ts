/**
 * Builds the browser SDK (sdk/src) with esbuild into two minified IIFEs: sdk/dist/sdk.js, the file
 * `GET /v1/public/sites/:siteKey/sdk.js` serves, and sdk/dist/gpp.js (sdk/src/gpp), the IAB GPP CMP
 * API that `…/gpp.js` serves and the SDK loads only for US opt-out visitors (it is larger than the
 * SDK's whole budget). src/modules/sites/sdk-bundle.ts reads both. package.json runs this on
 * `postinstall` and `prestart`, so `npm install && npm start` serves the current source with no
 * extra step; `npm run build:sdk` runs it by hand, and the browser tests run it before they start
 * the service.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const SDK_DIR = path.dirname(fileURLToPath(import.meta.url));
export const SDK_ENTRY = path.join(SDK_DIR, 'src', 'index.ts');
export const SDK_BUNDLE_FILE = path.join(SDK_DIR, 'dist', 'sdk.js');
export const GPP_ENTRY = path.join(SDK_DIR, 'src', 'gpp', 'index.ts');
export const GPP_BUNDLE_FILE = path.join(SDK_DIR, 'dist', 'gpp.js');

/** A bundle's text: ASCII only (esbuild escapes the rest), so the page's charset cannot garble it. */
async function bundle(entry: string): Promise<string> {
  // Loaded lazily: esbuild is a dev dependency here and a dependency of tsx, which runs the service.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2019'],
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

export const buildSdk = (): Promise<string> => bundle(SDK_ENTRY);
export const buildGpp = (): Promise<string> => bundle(GPP_ENTRY);

export interface BundleSize {
  file: string;
  bytes: number;
  gzipBytes: number;
}

/** Writes one bundle; write-then-rename, so a server or test reading it never sees half. */
function write(file: string, code: string): BundleSize {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, code);
  fs.renameSync(temp, file);
  return { file, bytes: Buffer.byteLength(code), gzipBytes: gzipSync(code, { level: 9 }).length };
}

/** Builds and writes both bundles (sdk.js, gpp.js). */
export async function writeSdkBundle(): Promise<BundleSize[]> {
  const [sdk, gpp] = await Promise.all([buildSdk(), buildGpp()]);
  return [write(SDK_BUNDLE_FILE, sdk), write(GPP_BUNDLE_FILE, gpp)];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeSdkBundle().then(
    (sizes) => {
      for (const { file, bytes, gzipBytes } of sizes) {
        console.log(`${path.relative(process.cwd(), file)}: ${bytes} bytes, ${gzipBytes} gzipped`);
      }
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
