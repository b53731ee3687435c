/**
 * Builds the npm packages under packages/ into each package's dist/: the ESM bundle with esbuild
 * (the bundler that already builds sdk.js) and the `.d.ts` declarations with tsc. Each package's
 * `npm run build` runs it with the package's name; `npm run packages:build` builds them all.
 *
 * The browser package is bundled from sdk/src/consent.ts, the same source as the snippet's sdk.js,
 * and the client package from clients/typescript/src, where `npm run client:generate` writes the
 * API's types: neither package keeps a copy that could drift from the source.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(PACKAGES_DIR);
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

interface PackageSpec {
  /** The entry esbuild bundles into dist/index.js. */
  entry: string;
  platform: 'browser' | 'neutral';
  /** Imports left to the consumer's bundler: the package's dependencies and peer dependencies. */
  external: string[];
  /** Text put before the bundle. */
  banner?: string;
  /** Declaration files tsc does not copy (a hand-written or generated `.d.ts` the sources import). */
  copyTypes?: Array<{ from: string; to: string }>;
  /**
   * Packages of this repository its sources import: their declarations are taken from their build
   * beside this one (built first), not from node_modules, where a fresh clone has none built.
   */
  imports?: string[];
}

export const PACKAGES: Record<string, PackageSpec> = {
  // Order matters: react's declarations import @consent-service/browser's.
  browser: { entry: 'packages/browser/src/index.ts', platform: 'browser', external: [] },
  client: {
    entry: 'clients/typescript/src/index.ts',
    platform: 'neutral',
    external: ['openapi-fetch'],
    copyTypes: [{ from: 'clients/typescript/src/schema.d.ts', to: 'dist/types/schema.d.ts' }],
  },
  // No DOM: React Native (Hermes), Node and browsers; the web SDK's decision logic bundled in.
  core: { entry: 'packages/core/src/index.ts', platform: 'neutral', external: [] },
  react: {
    entry: 'packages/react/src/index.tsx',
    platform: 'browser',
    external: ['react', 'react/jsx-runtime', '@consent-service/browser'],
    imports: ['browser'],
    // Its components hold state and effects: Next.js's App Router may render them only on the client.
    banner: "'use client';",
  },
  // Type-checked against react-native's own types; react-native-web renders it in the tests.
  'react-native': {
    entry: 'packages/react-native/src/index.tsx',
    platform: 'neutral',
    external: ['react', 'react/jsx-runtime', 'react-native', '@consent-service/core'],
    imports: ['core'],
  },
};

/**
 * Builds packages/<name>: dist/index.js (ESM) and dist/types (declarations), in the package's folder
 * or in `into` (a copy of the package elsewhere: the tests pack their own, so two never share a dist).
 */
export async function buildPackage(name: string, into = path.join(PACKAGES_DIR, name)): Promise<void> {
  const spec = PACKAGES[name];
  if (!spec) throw new Error(`no package ${name}; one of ${Object.keys(PACKAGES).join(', ')}`);
  const dist = path.join(into, 'dist');
  fs.rmSync(dist, { recursive: true, force: true });
  const { build } = await import('esbuild');
  await build({
    entryPoints: [path.join(ROOT, spec.entry)],
    outfile: path.join(dist, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: spec.platform,
    // The consumer's bundler minifies and lowers further; this is the floor the sources need.
    target: ['es2020'],
    jsx: 'automatic',
    external: spec.external,
    banner: spec.banner ? { js: spec.banner } : undefined,
    legalComments: 'none',
    logLevel: 'warning',
  });
  execFileSync(
    process.execPath,
    [TSC, '-p', typesConfig(name, spec, into), '--outDir', path.join(dist, 'types')],
    {
      stdio: 'inherit',
    },
  );
  for (const { from, to } of spec.copyTypes ?? [])
    fs.copyFileSync(path.join(ROOT, from), path.join(into, to));
}

/**
 * The tsconfig the declarations are built with: the package's own, plus, for each package of this
 * repository it imports, a path to that package's built declarations beside `into` (so a copy built
 * elsewhere by the tests resolves its sibling copy, and `npm run packages:build` the real one).
 */
function typesConfig(name: string, spec: PackageSpec, into: string): string {
  const own = path.join(PACKAGES_DIR, name, 'tsconfig.json');
  if (!spec.imports?.length) return own;
  const paths: Record<string, string[]> = {};
  for (const dep of spec.imports) {
    const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGES_DIR, dep, 'package.json'), 'utf8'));
    paths[manifest.name] = [path.join(into, '..', dep, manifest.types)];
  }
  const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `cs-${name}-types-`)), 'tsconfig.json');
  const base = JSON.parse(fs.readFileSync(own, 'utf8'));
  const resolved = {
    extends: own,
    compilerOptions: { paths, rootDir: path.join(PACKAGES_DIR, name, base.compilerOptions.rootDir) },
    files: base.files.map((file: string) => path.join(PACKAGES_DIR, name, file)),
  };
  fs.writeFileSync(config, JSON.stringify(resolved));
  return config;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  for (const name of names.length ? names : Object.keys(PACKAGES)) await buildPackage(name);
}
