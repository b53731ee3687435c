// The compiled service (dist/server/main.js): built by scripts/build.mjs, used by
// bin/consent-service.mjs when it is current (the hash of src/ equals the one it was built from),
// else the CLI runs the TypeScript sources through tsx as before.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_DIR = path.join(ROOT, 'dist', 'server');
export const SERVER_ENTRY = path.join(SERVER_DIR, 'main.js');
const SERVER_STAMP = path.join(SERVER_DIR, '.sources.sha256');
const SDK_STAMP = path.join(ROOT, 'sdk', 'dist', '.inputs.sha256');
const TARBALLS_DIR = path.join(ROOT, 'dist', 'packages');
const TARBALLS_STAMP = path.join(ROOT, 'dist', '.packages-inputs.sha256');
const SELF = fileURLToPath(import.meta.url);

function filesUnder(dir, keep) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .map((name) => path.join(dir, name))
    .filter((file) => keep(file) && fs.statSync(file).isFile())
    .sort();
}

function hashFiles(files) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

const isCode = (file) => /\.(ts|mts|mjs|js|json)$/.test(file) && !/\.test\.ts$/.test(file);
const serverInputs = () => [
  ...filesUnder(path.join(ROOT, 'src'), isCode),
  path.join(ROOT, 'package.json'),
  path.join(ROOT, 'tsconfig.json'),
  SELF,
];
const sdkInputs = () => [
  ...filesUnder(path.join(ROOT, 'sdk', 'src'), () => true),
  // The SDK imports the formats shared with the service (e.g. the Additional Consent string).
  ...filesUnder(path.join(ROOT, 'src', 'shared'), isCode),
  path.join(ROOT, 'sdk', 'build.ts'),
  path.join(ROOT, 'src', 'platform', 'http', 'bundle-encodings.ts'),
];

const stampIs = (file, hash) => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === hash;

export const serverBuildIsCurrent = () =>
  fs.existsSync(SERVER_ENTRY) && stampIs(SERVER_STAMP, hashFiles(serverInputs()));

export const sdkBuildIsCurrent = () =>
  ['sdk.js', 'gpp.js', 'tcf.js'].every((name) => fs.existsSync(path.join(ROOT, 'sdk', 'dist', name))) &&
  stampIs(SDK_STAMP, hashFiles(sdkInputs()));

export const writeSdkStamp = () => fs.writeFileSync(SDK_STAMP, hashFiles(sdkInputs()));

// The npm packages' tarballs (packages/pack.ts): their own sources, the SDK's and the typed client's
// they are bundled from, and the formats shared with the service.
const isPackageSource = (file) => !/[/\\](dist|node_modules)[/\\]/.test(file);
const tarballInputs = () => [
  ...filesUnder(path.join(ROOT, 'packages'), isPackageSource),
  ...filesUnder(path.join(ROOT, 'sdk', 'src'), () => true),
  ...filesUnder(path.join(ROOT, 'clients', 'typescript', 'src'), () => true),
  ...filesUnder(path.join(ROOT, 'src', 'shared'), isCode),
];

export const tarballsAreCurrent = () =>
  fs.existsSync(path.join(TARBALLS_DIR, 'index.json')) && stampIs(TARBALLS_STAMP, hashFiles(tarballInputs()));

export const writeTarballsStamp = () => fs.writeFileSync(TARBALLS_STAMP, hashFiles(tarballInputs()));

/**
 * Bundles src/main.ts with its own modules (packages stay imports of node_modules), split at each
 * dynamic import so a command still loads only what it needs. Each module's `import.meta.url` is
 * rewritten to its source file's URL, relative to the output, so the paths it resolves from there
 * (sdk/dist, docs/guides, migrations, console/src) stay those of the checkout.
 */
export async function buildServer() {
  const { build } = await import('esbuild');
  const hash = hashFiles(serverInputs());
  const temp = `${SERVER_DIR}.${process.pid}.tmp`;
  fs.rmSync(temp, { recursive: true, force: true });
  const srcDir = path.join(ROOT, 'src');
  await build({
    entryPoints: { main: path.join(srcDir, 'main.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: temp,
    chunkNames: 'chunk-[hash]',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [
      {
        name: 'source-import-meta',
        setup(b) {
          b.onLoad({ filter: /\.(ts|mts|mjs|js)$/ }, async (args) => {
            if (!args.path.startsWith(srcDir)) return undefined;
            const text = await fs.promises.readFile(args.path, 'utf8');
            const loader = /\.m?ts$/.test(args.path) ? 'ts' : 'js';
            if (!text.includes('import.meta')) return { contents: text, loader };
            const relative = path.relative(SERVER_DIR, args.path).split(path.sep).join('/');
            const url = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
            const contents = text
              .replaceAll('import.meta.url', `(${url})`)
              .replaceAll('import.meta.filename', `(${JSON.stringify(args.path)})`)
              .replaceAll('import.meta.dirname', `(${JSON.stringify(path.dirname(args.path))})`);
            return { contents, loader };
          });
        },
      },
    ],
  });
  fs.writeFileSync(path.join(temp, '.sources.sha256'), hash);
  fs.rmSync(SERVER_DIR, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(SERVER_DIR), { recursive: true });
  fs.renameSync(temp, SERVER_DIR);
}

/** The compiled entry's URL, for bin/consent-service.mjs. */
export const serverEntryUrl = () => pathToFileURL(SERVER_ENTRY).href;
