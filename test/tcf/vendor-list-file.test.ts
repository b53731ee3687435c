import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRESHNESS } from '../../src/modules/tcf/vendor-list/vendor-list-mirror.ts';
import type { TestApp } from '../helpers/app.ts';
import { buildVendorList, writeVendorListDir } from '../helpers/gvl.ts';
import { startTcfTestApp, useTcf } from '../helpers/tcf.ts';

/** TCF_GVL_URL as a file: directory an operator fills with IAB's files (its own file: one database per file). */
describe('the vendor list mirror over a file: directory (installs without internet)', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gvl-'));
    writeVendorListDir(dir, buildVendorList({ version: 120 }), ['fr']);
    ({ t } = await startTcfTestApp({ env: { TCF_GVL_URL: pathToFileURL(dir).href } }));
    await useTcf(t);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads vendor-list.json from the directory, and is fresh for an hour (a file has no max-age)', async () => {
    expect((await t.app.services.tcf.latestVendorList(t.store.db))?.vendorListVersion).toBe(120);
    const state = await t.app.services.tcf.mirrorState(t.store.db);
    expect(state!.nextFetchAt!.getTime() - state!.lastSuccessAt!.getTime()).toBe(
      FRESHNESS.defaultSeconds * 1000,
    );
  });

  it('keeps the version it has when the operator leaves a broken file', async () => {
    fs.writeFileSync(path.join(dir, 'vendor-list.json'), '{"gvlSpecificationVersion": 3,');
    t.clock.advance(3601_000);
    await t.worker.runDue();
    expect((await t.app.services.tcf.latestVendorList(t.store.db))?.vendorListVersion).toBe(120);
    expect((await t.app.services.tcf.mirrorState(t.store.db))?.lastError).toMatch(/not valid JSON/);
  });
});
