#!/usr/bin/env node
// Plain JavaScript (no tsx): what `npm install` (postinstall) and `npm start` (prestart, with
// --if-changed) run. It compiles the service's TypeScript (src/) into dist/server/ with esbuild, so
// `npm start` and the CLI run JavaScript instead of compiling at every start, and it builds the
// browser SDK (sdk/build.ts) when sdk/src changed. With --if-changed, each is rebuilt only when
// the hash of its sources differs from the one stored beside its last build (a restart builds nothing).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildServer,
  sdkBuildIsCurrent,
  serverBuildIsCurrent,
  tarballsAreCurrent,
  writeSdkStamp,
  writeTarballsStamp,
} from './server-build.mjs';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const ifChanged = process.argv.includes('--if-changed');
const say = (line) => process.stderr.write(`consent-service: ${line}\n`);

if (ifChanged && serverBuildIsCurrent()) {
  say('dist/server is up to date with src/');
} else {
  say('compiling the service into dist/server (once per change of src/)…');
  const started = Date.now();
  await buildServer();
  say(`compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (ifChanged && sdkBuildIsCurrent()) {
  say('sdk/dist is up to date with sdk/src');
} else {
  say('building the browser SDK into sdk/dist…');
  const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const args = [tsx, path.join(ROOT, 'sdk', 'build.ts')];
  if (ifChanged) args.push('--if-changed');
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeSdkStamp();
}
fs.mkdirSync(path.join(ROOT, 'dist'), { recursive: true });

// The npm packages as tarballs in dist/packages/, served at $BASE_URL/packages/ (nothing here can
// publish to a registry). Packed again only when their sources changed, at install as at start. A
// failure leaves the service working without them (GET /packages/ says so), so it warns, not fails.
if (tarballsAreCurrent()) {
  say('dist/packages is up to date with packages/');
} else {
  say('packing the npm packages into dist/packages (served at /packages/)…');
  const started = Date.now();
  const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const result = spawnSync(process.execPath, [tsx, path.join(ROOT, 'packages', 'pack.ts')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (result.status === 0) {
    writeTarballsStamp();
    say(`packed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } else {
    say('packing the npm packages failed: /packages/ will answer 404 until `npm run packages:pack` succeeds');
  }
}
