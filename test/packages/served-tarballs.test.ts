import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const INDEX = path.join(ROOT, 'dist', 'packages', 'index.json');

interface Listed {
  name: string;
  version: string;
  url: string;
  integrity: string;
  size: number;
  install: string;
}

/**
 * Nothing here can publish to npm, so `npm install` packs the packages into
 * dist/packages/ and the service serves them at /packages/. The React tarball must install alone,
 * downloaded from the service, with only React from the registry: before it bundled the browser
 * package, npm looked `@consent-service/browser@0.1.0` up on the registry and failed.
 */
describe('the npm packages served as tarballs at /packages/', () => {
  let t: TestApp;
  let listed: Listed[];
  const dirs: string[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(INDEX))
      throw new Error(
        `${INDEX} is missing: \`npm install\` packs the packages (or run npm run packages:pack)`,
      );
    t = await startTestApp();
    const response = await fetch(`${t.baseUrl}/packages/`);
    expect(response.status).toBe(200);
    listed = ((await response.json()) as { packages: Listed[] }).packages;
  });
  afterAll(async () => {
    await t?.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists each package with its address, integrity and the command that installs it', () => {
    expect(listed.map((p) => p.name).sort()).toEqual([
      '@consent-service/browser',
      '@consent-service/client',
      '@consent-service/core',
      '@consent-service/react',
      '@consent-service/react-native',
    ]);
    for (const entry of listed) {
      expect(entry.url).toMatch(/\/packages\/consent-service-[a-z-]+-\d+\.\d+\.\d+\.tgz$/);
      expect(entry.integrity).toMatch(/^sha512-/);
      expect(entry.install).toBe(`npm install ${entry.url}`);
    }
  });

  it('installs the React tarball alone from the service, the browser package bundled inside it', async () => {
    const react = listed.find((p) => p.name === '@consent-service/react')!;
    const file = new URL(react.url).pathname;
    const download = await fetch(`${t.baseUrl}${file}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    expect((await download.arrayBuffer()).byteLength).toBe(react.size);

    const app = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-served-react-'));
    dirs.push(app);
    fs.writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    // Only the React tarball, from the service's address, and React itself from the registry.
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
        `${t.baseUrl}${file}`,
        'react@^19',
      ],
      { cwd: app },
    );
    const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8'));
    const bundled =
      lock.packages['node_modules/@consent-service/react/node_modules/@consent-service/browser'];
    expect(bundled).toMatchObject({ version: '0.1.0', inBundle: true });
    expect(lock.packages['node_modules/@consent-service/browser']).toBeUndefined();

    fs.writeFileSync(
      path.join(app, 'check.mjs'),
      "const react = await import('@consent-service/react'); console.log(Object.keys(react).sort().join(','));",
    );
    const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: app });
    expect(stdout.trim().split(',')).toEqual(
      expect.arrayContaining(['ConsentGate', 'ConsentProvider', 'ConsentScript', 'useConsent']),
    );
  });

  it('answers a name it does not list, or a path, with a 404 problem', async () => {
    for (const name of ['consent-service-nope-0.1.0.tgz', '..%2Fpackage.json', 'index.json']) {
      const response = await fetch(`${t.baseUrl}/packages/${name}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(((await response.json()) as { code: string }).code).toBe('not_found');
    }
  });
});
