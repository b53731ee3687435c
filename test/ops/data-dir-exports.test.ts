import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createClient } from '../helpers/http.ts';
import { freePort, runCli, startService, waitReady } from '../helpers/processes.ts';
import { createReadySite, recordConsent } from '../helpers/sites.ts';

/**
 * Export files hold evidence with full pseudonyms: under DATA_DIR they are the service user's alone
 * on every store (this file runs on the store of the run: PostgreSQL with DATABASE_URL, else
 * embedded). The service runs as an operator starts it, with a umask of 000 (the loosest there
 * is), in a DATA_DIR it creates; after an export, DATA_DIR is 0700 and no folder or file under it
 * lets a group or other user in.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every path under dir (itself included) with its mode, as `mode relative-path`. */
function modes(dir: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    found.push(`${(stat.mode & 0o777).toString(8).padStart(4, '0')} ${path.relative(dir, entry) || '.'}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return found;
}

/** The lines of `modes` whose mode lets a group or other user in. */
const openToOthers = (lines: string[]) => lines.filter((line) => Number.parseInt(line, 8) & 0o077);

describe(`export files (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded'} store)`, () => {
  it('are 0600 in 0700 folders of a 0700 DATA_DIR the service created, whatever the umask', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'consent-export-modes-')), 'data');
    dirs.push(path.dirname(dataDir));
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
    // The child inherits the umask it is spawned with.
    const umask = process.umask(0o000);
    let service: ReturnType<typeof startService>;
    try {
      service = startService(['serve'], env);
    } finally {
      process.umask(umask);
    }
    try {
      await waitReady(baseUrl, service, 90_000);
      const boot = await runCli(
        ['bootstrap', '--org', 'Modes', '--owner', `modes-${Date.now()}@example.com`, '--json'],
        env,
        60_000,
      );
      expect(boot.code, boot.stderr).toBe(0);
      const { apiKeys, organization } = JSON.parse(boot.stdout);
      // Enough of TestApp for the site helpers: HTTP to the child; its clock is its own.
      const t = { http: createClient(baseUrl), clock: { advance() {} } } as unknown as TestApp;
      const site = await createReadySite(t, apiKeys.test);
      for (let n = 0; n < 3; n++) await recordConsent(t, site);

      const requested = await t.http.post('/v1/exports', { key: apiKeys.test, body: {} });
      expect(requested.status, requested.text).toBe(202);
      const id = requested.body.data.id as string;
      let status = 'queued';
      for (let i = 0; i < 600 && status !== 'succeeded' && status !== 'failed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await t.http.get(`/v1/exports/${id}`, { key: apiKeys.test })).body.data.status;
      }
      expect(status).toBe('succeeded');
      const file = path.join(dataDir, 'exports', organization.id, `${id}.jsonl`);
      expect(fs.readFileSync(file, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(3);

      // While it runs: DATA_DIR closed to others, and nothing of the export open.
      const running = modes(dataDir);
      expect(running).toContain('0700 .');
      expect(running).toContain('0700 exports');
      expect(running).toContain(`0700 exports/${organization.id}`);
      expect(running).toContain(`0600 exports/${organization.id}/${id}.jsonl`);
      expect(openToOthers(running.filter((line) => line.includes(' exports')))).toEqual([]);

      // Stopped: nothing at all open to others (the embedded store's own files, which PGlite
      // writes 0666 inside the closed DATA_DIR while it runs, are repaired when it closes).
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(openToOthers(modes(dataDir))).toEqual([]);

      // A DATA_DIR an older version left open is closed again by the next start, on every store.
      const loosen = (entry: string) => {
        const stat = fs.lstatSync(entry);
        fs.chmodSync(entry, stat.isDirectory() ? 0o755 : 0o644);
        if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) loosen(path.join(entry, name));
      };
      loosen(dataDir);
      expect(openToOthers(modes(dataDir))).toContain(`0644 exports/${organization.id}/${id}.jsonl`);
      service = startService(['serve'], env);
      await waitReady(baseUrl, service, 90_000);
      // (Below pgdata, files PGlite rewrites as it runs may be open again, inside the closed DATA_DIR.)
      const reopened = modes(dataDir);
      expect(reopened).toContain('0700 .');
      expect(openToOthers(reopened).filter((line) => !line.includes(' pgdata/'))).toEqual([]);
      // The file is still the export's, and still served.
      const download = await fetch(`${baseUrl}/v1/exports/${id}/file`, {
        headers: { authorization: `Bearer ${apiKeys.test}` },
      });
      expect(download.status).toBe(200);
      expect((await download.text()).trim().split('\n').length).toBeGreaterThanOrEqual(3);
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(openToOthers(modes(dataDir))).toEqual([]);
    } finally {
      service.kill();
      await service.exited;
    }
  }, 240_000);
});
