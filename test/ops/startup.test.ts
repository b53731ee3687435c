import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVendorList, serveVendorList, type VendorListServer } from '../helpers/gvl.ts';
import {
  freePort,
  type ServiceProcess,
  startService,
  waitForOutput,
  waitReady,
} from '../helpers/processes.ts';

/**
 * `npm start` as a newcomer runs it: prestart compiles the service once (dist/server) and skips the
 * build when nothing changed; the server then runs that JavaScript (no tsx), says what it is doing
 * while it starts, and, with no channel using TCF, never reaches for the vendor list.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const build = () =>
  spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-changed'], {
    cwd: ROOT,
    encoding: 'utf8',
  });

let gvl: VendorListServer;
let dataDir: string;
const started: ServiceProcess[] = [];
beforeAll(async () => {
  gvl = await serveVendorList(buildVendorList());
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'startup-'));
});
afterAll(async () => {
  for (const service of started) service.kill();
  await gvl.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('start-up', () => {
  it('prestart builds dist/server when src/ changed, and nothing on a restart', () => {
    const first = build();
    expect(first.status, first.stderr).toBe(0);
    const again = build();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain('consent-service: dist/server is up to date with src/');
    expect(again.stderr).not.toContain('compiling');
    expect(fs.existsSync(path.join(ROOT, 'dist/server/main.js'))).toBe(true);
  });

  it('runs the compiled service, prints its progress, and fetches no vendor list while no channel uses TCF', async () => {
    const port = await freePort();
    const service = startService(['serve'], {
      PORT: String(port),
      DATA_DIR: dataDir,
      TCF_GVL_URL: gvl.url,
      LOG_LEVEL: 'debug',
    });
    started.push(service);
    await waitReady(`http://127.0.0.1:${port}`, service, 60_000);
    const output = service.output();
    expect(output).toContain('consent-service: starting the compiled service (dist/server)');
    expect(output).not.toContain('tsx');
    expect(output).toMatch(/consent-service: (creating the tables|migrating…)/);
    expect(output).toContain(`consent-service: listening on http://127.0.0.1:${port}`);
    // The worker's first round runs as it starts: once its vendor list job has run (the runner says
    // so at debug level), a start without TCF must have asked the list's host for nothing.
    await waitForOutput(service, '"kind":"tcf.vendor-list","msg":"job succeeded"', 60_000);
    expect(gvl.requests).toEqual([]);
    expect(service.output()).not.toMatch(/vendor list/i);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 120_000);
});
