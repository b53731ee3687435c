import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../src/modules/exports/exports.service.ts';
import { download, parseCsv } from '../exports/helpers.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
  WILDCARD_MATCH,
} from '../helpers/sites.ts';
import { LOCAL_WEBHOOKS_ENV, subscribeWebhook } from '../helpers/webhooks.ts';
import { independentLeafHash, insertEvents, newSigningKey, proofVerifies } from '../ledger/ledger-helpers.ts';

/**
 * Choices carried over (docs/guides/keep-the-choice.md) are evidence like any other: `handoff` and
 * `importedFrom` are part of an event's canonical body, so its receipt hash and ledger leaf cover
 * them, and they are in every read, JSONL and CSV export line. Events without them keep exactly the
 * bytes and leaf hashes they had: the independent verifier of the ledger tests and
 * `npx consent-service verify-export` prove old and new events alike.
 */
const BIN = path.resolve('bin/consent-service.mjs');
const signingKey = newSigningKey();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-carried-choices-'));
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
const ids: Record<'old' | 'banner' | 'import' | 'handoff', string> = {
  old: '',
  banner: '',
  import: '',
  handoff: '',
};

beforeAll(async () => {
  t = await startTestApp({
    env: { ...SITES_TEST_ENV, ...LOCAL_WEBHOOKS_ENV, LEDGER_SIGNING_KEY: signingKey.pem, DATA_DIR: dir },
  });
  tenant = await t.tenant();
  // consent.recorded payloads are built in SQL by the consent write: they must carry the members too.
  await subscribeWebhook(t, tenant.testKey, ['consent.recorded']);
  site = await createReadySite(t, tenant.testKey);
  const patched = await t.http.patch(`/v1/channels/${site.channelId}`, {
    key: tenant.testKey,
    body: { crossDomain: true, imports: [{ from: 'cookiebot', purposes: { statistics: 'analytics' } }] },
  });
  expect(patched.status, patched.text).toBe(200);
  site.configVersion = patched.body.data.configVersion;

  const [old] = await insertEvents(
    t.store,
    { organizationId: tenant.organizationId, environment: 'test' },
    1,
    {
      from: t.clock.now(),
      channelId: site.channelId,
    },
  );
  ids.old = old.id;
  t.clock.advance(1_000);
  const subjectId = newSubjectId();
  const banner = await postPreferences(t, site.siteKey, preferencesBody(site, { subjectId }));
  expect(banner.status, banner.text).toBe(201);
  ids.banner = banner.body.data.id;
  t.clock.advance(1_000);
  const imported = await postPreferences(
    t,
    site.siteKey,
    preferencesBody(site, {
      source: 'import',
      importedFrom: {
        cmp: 'cookiebot',
        recordedAt: new Date(t.clock.now().getTime() - 86_400_000).toISOString(),
        // Quotes and backslashes: the export's builders must escape them as JSON does.
        value: `{stamp:'x"y\\\\z'%2Cnecessary:true%2Cstatistics:true%2Cmarketing:false}`,
      },
    }),
  );
  expect(imported.status, imported.text).toBe(201);
  ids.import = imported.body.data.id;
  t.clock.advance(1_000);
  const token = await t.http.post(`/v1/public/sites/${site.siteKey}/handoffs`, {
    body: { subjectId, target: WILDCARD_MATCH },
    headers: { origin: SITE_ORIGIN },
  });
  expect(token.status, token.text).toBe(201);
  const redeemed = await t.http.post(`/v1/public/sites/${site.siteKey}/handoffs/redeem`, {
    body: { token: token.body.data.token, subjectId: newSubjectId() },
    headers: { origin: WILDCARD_MATCH },
  });
  expect(redeemed.status, redeemed.text).toBe(200);
  const handed = await t.http.get(`/v1/evidence?channelId=${site.channelId}&source=handoff`, {
    key: tenant.testKey,
  });
  ids.handoff = handed.body.data[0].id;
  await t.app.services.ledger.sealer.sealAll();
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function exported(format: 'jsonl' | 'csv', includeProofs: boolean) {
  const requested = await t.http.post('/v1/exports', {
    key: tenant.testKey,
    body: { channelId: site.channelId, format, includeProofs },
  });
  expect(requested.status, requested.text).toBe(202);
  const done = await runExport(t.app.services, {
    organizationId: tenant.organizationId,
    exportId: requested.body.data.id,
  });
  expect(done?.status).toBe('succeeded');
  const file = await download(t, tenant.testKey, requested.body.data.id);
  expect(file.status, file.text.slice(0, 300)).toBe(200);
  return file.text;
}

describe('handoff and importedFrom in the evidence', () => {
  it('appear in reads only on the events that have them', async () => {
    const read = async (id: string) =>
      (await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey })).body.data;
    const [old, banner, imported, handoff] = await Promise.all(
      [ids.old, ids.banner, ids.import, ids.handoff].map(read),
    );
    for (const event of [old, banner]) {
      expect(event).not.toHaveProperty('handoff');
      expect(event).not.toHaveProperty('importedFrom');
    }
    expect(imported.importedFrom).toMatchObject({
      cmp: 'cookiebot',
      value: expect.stringContaining('x"y\\\\z'),
    });
    expect(imported).not.toHaveProperty('handoff');
    expect(handoff.handoff).toEqual({ fromOrigin: SITE_ORIGIN, eventId: ids.banner });
    expect(handoff).not.toHaveProperty('importedFrom');
  });

  it('are in the consent.recorded webhook payloads, as reads show them', async () => {
    const rows = (
      (await rawSql(t.store).execute(
        sql`select data from webhook_events where organization_id = ${tenant.organizationId} and type = 'consent.recorded'`,
      )) as unknown as { rows: Array<{ data: Record<string, any> }> }
    ).rows;
    for (const id of [ids.banner, ids.import, ids.handoff]) {
      const payload = rows.find((r) => r.data.id === id)?.data;
      const read = await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey });
      expect(payload, id).toEqual(read.body.data);
    }
  });

  it('every JSONL line proves with the independent verifier, and verify-export passes', async () => {
    const text = await exported('jsonl', true);
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const { treeHead } = lines.pop();
    expect(lines.map((line) => line.id).sort()).toEqual(Object.values(ids).sort());
    for (const line of lines) {
      const leaf = independentLeafHash(line);
      expect(leaf, line.id).toBe(line.receipt.hash);
      expect(
        proofVerifies(leaf, { ...line.ledger, treeSize: treeHead.treeSize, rootHash: treeHead.rootHash }),
        line.id,
      ).toBe(true);
    }
    const byId = Object.fromEntries(lines.map((line) => [line.id, line]));
    expect(byId[ids.handoff].handoff).toEqual({ fromOrigin: SITE_ORIGIN, eventId: ids.banner });
    expect(byId[ids.import].importedFrom.cmp).toBe('cookiebot');
    expect(byId[ids.old]).not.toHaveProperty('handoff');

    const file = path.join(dir, 'carried.jsonl');
    fs.writeFileSync(file, text);
    const env = { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: dir };
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        'node',
        [BIN, 'verify-export', file, '--key', signingKey.publicKey],
        { env, timeout: 60_000 },
        (error, stdout) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
    expect(result.stdout).toContain('OK: 4 events verified');
    expect(result.code).toBe(0);

    // Changing what was carried over breaks the proof: the members are part of what is signed.
    const tampered = {
      ...byId[ids.handoff],
      handoff: { fromOrigin: 'https://evil.example', eventId: ids.banner },
    };
    expect(independentLeafHash(tampered)).not.toBe(byId[ids.handoff].receipt.hash);
  });

  it('CSV has the members as columns, empty on events without them', async () => {
    const rows = parseCsv(await exported('csv', false));
    const header = rows[0];
    const at = (name: string) => header.indexOf(name);
    for (const name of [
      'handoff.fromOrigin',
      'handoff.eventId',
      'importedFrom.cmp',
      'importedFrom.recordedAt',
      'importedFrom.value',
    ]) {
      expect(at(name), name).toBeGreaterThan(-1);
    }
    const byId = Object.fromEntries(rows.slice(1).map((row) => [row[at('id')], row]));
    expect(byId[ids.handoff][at('handoff.eventId')]).toBe(ids.banner);
    expect(byId[ids.import][at('importedFrom.cmp')]).toBe('cookiebot');
    expect(byId[ids.old][at('handoff.eventId')]).toBe('');
    expect(byId[ids.old][at('importedFrom.value')]).toBe('');
  });
});
