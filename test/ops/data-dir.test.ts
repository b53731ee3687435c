import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCli, startService, waitReady } from '../helpers/processes.ts';

/** Every path under dir (itself included) whose mode lets a group or other user in. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    if (stat.mode & 0o077)
      found.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(dir, entry) || '.'}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return found;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the embedded store directory', () => {
  it('is the owner’s only: DATA_DIR 0700 and nothing below it open to others, new or repaired at start', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'consent-data-dir-')), 'data');
    dirs.push(path.dirname(dataDir));
    const env = { DATA_DIR: dataDir, DATABASE_URL: undefined };

    // A new directory (PGlite writes its files 0666 whatever the umask).
    const first = await runCli(['migrate'], env, 60_000);
    expect(first.code, first.stderr).toBe(0);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(openToOthers(dataDir)).toEqual([]);

    // A directory left world-writable by an older version is repaired when the store is opened.
    const loosen = (entry: string) => {
      const stat = fs.lstatSync(entry);
      fs.chmodSync(entry, stat.isDirectory() ? 0o777 : 0o666);
      if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) loosen(path.join(entry, name));
    };
    loosen(dataDir);
    expect(openToOthers(dataDir).length).toBeGreaterThan(100);
    const second = await runCli(['migrate'], env, 60_000);
    expect(second.code, second.stderr).toBe(0);
    expect(openToOthers(dataDir)).toEqual([]);
  }, 120_000);

  it('a first start says what it is doing before "ready"; a restart does not', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'consent-first-start-')), 'data');
    dirs.push(path.dirname(dataDir));
    const start = async () => {
      const port = await freePort();
      const service = startService(['serve'], {
        DATA_DIR: dataDir,
        DATABASE_URL: undefined,
        PORT: String(port),
        LOG_LEVEL: 'info',
      });
      try {
        await waitReady(`http://127.0.0.1:${port}`, service, 60_000);
        service.child.kill('SIGTERM');
        expect(await service.exited).toBe(0);
        return service.output();
      } finally {
        service.kill();
      }
    };
    const first = await start();
    const creating = first.indexOf('consent-service: creating the embedded store');
    const migrating = first.indexOf('consent-service: creating the tables (database migrations)');
    expect(creating).toBeGreaterThanOrEqual(0);
    expect(migrating).toBeGreaterThan(creating);
    expect(first.indexOf('consent-service ready')).toBeGreaterThan(migrating);
    const restart = await start();
    expect(restart).toContain('consent-service ready');
    expect(restart).not.toContain('consent-service: creating');
  }, 120_000);
});
