/**
 * Builds the browser SDK (sdk/src) into one minified IIFE with esbuild and writes it to
 * sdk/dist/sdk.js, the file `GET /v1/public/sites/:siteKey/sdk.js` serves (SDK_BUNDLE_PATH in
 * src/modules/sites/sdk-bundle.ts). package.json runs this on `postinstall` and `prestart`, so
 * `npm install && npm start` serves the current source with no extra step; `npm run build:sdk` runs
 * it by hand, and the browser tests run it before they start the service.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const SDK_DIR = path.dirname(fileURLToPath(import.meta.url));
export const SDK_ENTRY = path.join(SDK_DIR, 'src', 'index.ts');
export const SDK_BUNDLE_FILE = path.join(SDK_DIR, 'dist', 'sdk.js');

/** The bundle's text: ASCII only (esbuild escapes the rest), so the page's charset cannot garble it. */
export async function buildSdk(): Promise<string> {
  // Loaded lazily: esbuild is a dev dependency here and a dependency of tsx, which runs the service.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [SDK_ENTRY],
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

/** Builds and writes the bundle; write-then-rename, so a server or test reading it never sees half. */
export async function writeSdkBundle(): Promise<{ bytes: number; gzipBytes: number }> {
  const code = await buildSdk();
  fs.mkdirSync(path.dirname(SDK_BUNDLE_FILE), { recursive: true });
  const temp = `${SDK_BUNDLE_FILE}.${process.pid}.tmp`;
  fs.writeFileSync(temp, code);
  fs.renameSync(temp, SDK_BUNDLE_FILE);
  return { bytes: Buffer.byteLength(code), gzipBytes: gzipSync(code, { level: 9 }).length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeSdkBundle().then(
    ({ bytes, gzipBytes }) =>
      console.log(`${path.relative(process.cwd(), SDK_BUNDLE_FILE)}: ${bytes} bytes, ${gzipBytes} gzipped`),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
