/**
 * Packs the npm packages into tarballs with `npm pack`, as a registry would get them. Nothing here
 * can publish to npm, so `npm install` (scripts/build.mjs) packs them into dist/packages/ and the
 * service serves them at `$BASE_URL/packages/` (src/platform/http/package-tarballs.ts): a customer
 * installs `npm install $BASE_URL/packages/consent-service-react-0.1.0.tgz`, or, better, copies them into its
 * project with `consent-service packages --out` (src/cli/packages-command.ts).
 *
 * Each tarball installs alone. The React package depends on @consent-service/browser, which no
 * registry has, so its tarball carries the browser package inside it (npm's bundleDependencies):
 * npm installs the bundled copy instead of looking it up. Registry dependencies (React, openapi-fetch)
 * stay ordinary dependencies.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildPackage, PACKAGES } from './build.ts';

const run = promisify(execFile);
const PACKAGES_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(PACKAGES_DIR);
/** Where `npm install` leaves the tarballs the service serves. */
export const TARBALLS_DIR = path.join(ROOT, 'dist', 'packages');

export interface PackedPackage {
  /** The package's npm name, e.g. `@consent-service/react`. */
  name: string;
  version: string;
  /** The tarball's file name in the destination, e.g. `consent-service-react-0.1.0.tgz`. */
  file: string;
  /** Subresource-integrity hash of the tarball, as npm writes it in package-lock.json. */
  integrity: string;
  size: number;
}

/** The files a package publishes from its folder besides the dist/ it is built into. */
const PUBLISHED_FILES = ['package.json', 'README.md', 'LICENSE'];

/**
 * Builds every package into `staging/<name>` (each one a copy, so two runs never share a dist) and
 * packs it into `destination`. The order of PACKAGES puts browser before react, whose bundled copy
 * is the browser package just built.
 */
export async function packPackages(
  staging: string,
  destination: string,
  names: string[] = Object.keys(PACKAGES),
): Promise<PackedPackage[]> {
  fs.mkdirSync(destination, { recursive: true });
  const packed: PackedPackage[] = [];
  for (const name of names) {
    const staged = path.join(staging, name);
    fs.mkdirSync(staged, { recursive: true });
    for (const file of PUBLISHED_FILES)
      fs.copyFileSync(path.join(PACKAGES_DIR, name, file), path.join(staged, file));
    await buildPackage(name, staged);
    for (const dependency of bundledDependencies(staged)) {
      const sibling = path.join(staging, siblingFolder(dependency));
      if (!fs.existsSync(path.join(sibling, 'dist')))
        throw new Error(`${name} bundles ${dependency}: build it first (PACKAGES order)`);
      copyPublished(sibling, path.join(staged, 'node_modules', dependency));
    }
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', destination],
      { cwd: staged },
    );
    const [result] = JSON.parse(stdout);
    packed.push({
      name: result.name,
      version: result.version,
      file: result.filename,
      integrity: result.integrity,
      size: result.size,
    });
  }
  return packed;
}

function bundledDependencies(packageDir: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  return manifest.bundleDependencies ?? [];
}

/** `@consent-service/browser` → `browser`: the packages of this repository live in packages/<name>. */
function siblingFolder(dependency: string): string {
  const folder = dependency.replace(/^@consent-service\//, '');
  if (folder === dependency || !PACKAGES[folder])
    throw new Error(`${dependency} is not a package of this repository; only those can be bundled`);
  return folder;
}

/** Copies what npm would publish of a built package (its files list plus package.json). */
function copyPublished(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const file of [...PUBLISHED_FILES, 'dist'])
    fs.cpSync(path.join(from, file), path.join(to, file), { recursive: true });
}

/** `tsx packages/pack.ts`: packs every package into dist/packages/ with an index.json beside them. */
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-packages-'));
  try {
    const fresh = `${TARBALLS_DIR}.new`;
    fs.rmSync(fresh, { recursive: true, force: true });
    const packed = await packPackages(staging, fresh);
    fs.writeFileSync(path.join(fresh, 'index.json'), `${JSON.stringify(packed, null, 2)}\n`);
    // Swapped in whole, so a running service never lists a tarball that is half written.
    fs.rmSync(TARBALLS_DIR, { recursive: true, force: true });
    fs.renameSync(fresh, TARBALLS_DIR);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
