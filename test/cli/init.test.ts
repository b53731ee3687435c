import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedStore } from '../../src/platform/db/store.ts';
import { startTestApp } from '../helpers/app.ts';

/**
 * `consent-service init` as a developer runs it, against the store the CLI opens (DATA_DIR, or the
 * file's PostgreSQL database): the channel it makes is read back over HTTP by an app on the same
 * store, and the files it writes are read from the project folders. Each embedded run of the CLI
 * opens PGlite (seconds), so the runs are few and each checks several things.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/consent-service.mjs');
const databaseUrl = process.env.DATABASE_URL;
const SLOW = 180_000;
const ORIGIN = 'http://localhost:5173';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-init-'));
const dataDir = path.join(tmp, 'data');
const env: Record<string, string> = databaseUrl
  ? { DATABASE_URL: databaseUrl, DATA_DIR: dataDir }
  : { DATA_DIR: dataDir };
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
  if (!databaseUrl) delete childEnv.DATABASE_URL;
  delete childEnv.BASE_URL;
  return new Promise((resolve) => {
    const child = execFile(
      'node',
      [BIN, ...args],
      { cwd: ROOT, env: childEnv, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

function project(name: string, files: Record<string, string>): string {
  const dir = path.join(tmp, name);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');

describe('consent-service init', () => {
  let org: { organization: { id: string }; apiKeys: { test: string } };
  const html = project('site', { 'index.html': '<!doctype html><title>Site</title>' });
  const react = project('vite-app', {
    'package.json': JSON.stringify({
      dependencies: { react: '^19', 'react-dom': '^19' },
      devDependencies: { vite: '^8', typescript: '^5' },
    }),
    'tsconfig.json': '{}',
    'src/main.tsx': '',
  });
  let first: { channelId: string; siteKey: string; files: string[] };

  beforeAll(async () => {
    const made = await cli(['bootstrap', '--org', 'Init Co', '--owner', 'dev@example.com', '--json']);
    expect(made.code, made.stderr).toBe(0);
    org = JSON.parse(made.stdout);
  }, SLOW);

  it(
    'on a plain HTML folder: a test channel, its origin, and a snippet file with the site key',
    async () => {
      const result = await cli(['init', '--origin', ORIGIN, '--dir', html, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('consent-service: framework: html (no package.json in the directory)');
      first = JSON.parse(result.stdout);
      expect(Object.keys(first).sort()).toEqual(['channelId', 'files', 'siteKey']);
      expect(first.siteKey).toMatch(/^site_test_/);
      expect(first.files).toEqual([path.join(html, 'consent-service-snippet.html')]);
      expect(read(html, 'consent-service-snippet.html')).toContain(
        `<script src="http://127.0.0.1:3000/v1/public/sites/${first.siteKey}/sdk.js" data-site-key="${first.siteKey}" async></script>`,
      );
    },
    SLOW,
  );

  it(
    'run again on a React project: the same channel; the provider and .env.local, with no API key',
    async () => {
      const result = await cli(['init', '--origin', 'http://127.0.0.1:5173', '--dir', react, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('framework: react (package.json depends on react)');
      const second = JSON.parse(result.stdout);
      expect(second.channelId).toBe(first.channelId);
      expect(second.files).toEqual([
        path.join(react, 'src/consent-provider.tsx'),
        path.join(react, '.env.local'),
      ]);
      expect(read(react, '.env.local')).toContain(`VITE_CONSENT_SITE_KEY=${first.siteKey}\n`);
      expect(read(react, '.env.local')).toContain('VITE_CONSENT_BASE_URL=http://127.0.0.1:3000');
      expect(read(react, '.env.local')).not.toMatch(/svc_(test|live)_/);
      expect(read(react, 'src/consent-provider.tsx')).toContain(
        "import { ConsentProvider } from '@consent-service/react';",
      );
      expect(read(react, 'src/consent-provider.tsx')).toContain('import.meta.env.VITE_CONSENT_SITE_KEY');
    },
    SLOW,
  );

  it(
    'never overwrites a file: it names it, exits 1 and writes nothing',
    async () => {
      const next = project('next-app', {
        'package.json': JSON.stringify({ dependencies: { next: '^15', react: '^19' } }),
        'app/page.tsx': '',
        '.env.local': 'MINE=1\n',
      });
      const result = await cli(['init', '--origin', ORIGIN, '--dir', next]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        `${path.join(next, '.env.local')} already exists: init never overwrites a file`,
      );
      expect(read(next, '.env.local')).toBe('MINE=1\n');
      expect(fs.existsSync(path.join(next, 'app/consent-provider.jsx'))).toBe(false);
      expect(fs.readdirSync(path.join(next, 'app'))).toEqual(['page.tsx']);
    },
    SLOW,
  );

  it(
    'with two organizations and no --org it asks which; the channel is read back over HTTP',
    async () => {
      const other = await cli(['bootstrap', '--org', 'Init Other', '--owner', 'other@example.com', '--json']);
      expect(other.code, other.stderr).toBe(0);
      const asked = await cli(['init', '--origin', ORIGIN, '--dir', project('third', {})]);
      expect(asked.code).toBe(1);
      expect(asked.stderr).toMatch(/several organizations: pick one with --org \(org_\w+ "/);
      expect(asked.stderr).toContain(org.organization.id);

      // An app on the same store sees what init made: the origins given, the sample purposes.
      const store = databaseUrl
        ? undefined
        : await createEmbeddedStore({ dataDir: path.join(dataDir, 'pgdata') });
      const t = await startTestApp(store ? { store } : {});
      try {
        const key = org.apiKeys.test;
        const origins = await t.http.get(`/v1/channels/${first.channelId}/origins`, { key });
        expect(origins.status, origins.text).toBe(200);
        expect(origins.body.data.map((o: { origin: string }) => o.origin).sort()).toEqual([
          'http://127.0.0.1:5173',
          'http://localhost:5173',
        ]);
        const purposes = await t.http.get(`/v1/channels/${first.channelId}/purposes`, { key });
        expect(purposes.body.data.map((p: { key: string }) => p.key).sort()).toEqual([
          'analytics',
          'marketing',
          'necessary',
        ]);
        const channels = await t.http.get('/v1/channels', { key });
        expect(
          channels.body.data.filter((c: { name: string }) => c.name === 'Development channel'),
        ).toHaveLength(1);
      } finally {
        await t.close();
        await store?.close();
      }
    },
    SLOW,
  );
});
