import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliFailure, UsageError } from './errors.ts';
import { parse } from './options.ts';

/** Where `npm install` packs the npm packages (packages/pack.ts, run by scripts/build.mjs). */
const TARBALLS_DIR = fileURLToPath(new URL('../../dist/packages/', import.meta.url));

interface PackedPackage {
  name: string;
  version: string;
  file: string;
}

/** What each package is for, beside its install line. */
const PURPOSE: Record<string, string> = {
  '@consent-service/browser': 'any bundler: createConsent',
  '@consent-service/react': 'React: the provider, hooks and gates (the browser package inside)',
  '@consent-service/client': 'your backend: the typed REST API client',
  '@consent-service/core': 'the headless client (apps, other frameworks)',
  '@consent-service/react-native': 'React Native (the core inside)',
};

/**
 * The folder whose package.json the install goes into: `dir` itself or its nearest ancestor with
 * one, or null when there is none (the install line then names the absolute path).
 */
function projectOf(dir: string): string | null {
  for (let at = dir; ; at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, 'package.json'))) return at;
    if (path.dirname(at) === at) return null;
  }
}

/**
 * `packages --out DIR [--json]`: copies the tarballs into the customer's project and prints the
 * `npm install file:…` line of each. Installed from the service's URL, package.json would name
 * that address (a developer's 127.0.0.1:3000, gone on the next machine and in CI); installed from a
 * file in the project, it names a path that travels with the repository.
 */
export async function packagesCommand(args: string[], out: (line: string) => void, cwd: string) {
  const values = parse(args, { out: { type: 'string' }, json: { type: 'boolean' } });
  if (typeof values.out !== 'string' || values.out === '')
    throw new UsageError(
      '--out is required: a folder of your project, e.g. --out ../my-app/vendor/consent-service',
    );
  let packed: PackedPackage[];
  try {
    packed = JSON.parse(fs.readFileSync(path.join(TARBALLS_DIR, 'index.json'), 'utf8'));
  } catch {
    throw new CliFailure(
      `the packages are not packed in ${TARBALLS_DIR}: run npm install (or npm run packages:pack) in this checkout first`,
    );
  }
  const dir = path.resolve(cwd, values.out);
  fs.mkdirSync(dir, { recursive: true });
  const project = projectOf(dir);
  const packages = packed.map(({ name, version, file }) => {
    fs.copyFileSync(path.join(TARBALLS_DIR, file), path.join(dir, file));
    const target = path.join(dir, file);
    // npm keeps a file: path as written, relative to the project's package.json: written so, it
    // works wherever the project is checked out.
    const spec = project ? path.relative(project, target).split(path.sep).join('/') : target;
    return { name, version, file: target, install: `npm install file:${spec}` };
  });
  if (values.json) {
    out(JSON.stringify({ dir, project, packages }));
    return;
  }
  out(`Copied ${packages.length} packages into ${dir}.`);
  out(project ? `Install the ones you use, in ${project}:` : 'Install the ones you use, in your project:');
  for (const { name, install } of packages) out(`  ${install}   # ${PURPOSE[name] ?? name}`);
  out('Commit the .tgz files with your project: package.json names them, not this service.');
}
