import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceEventBody } from '../../src/modules/evidence/evidence.presenters.ts';
import { evidenceRepo } from '../../src/modules/evidence/evidence.repo.ts';
import type { EvidenceRow } from '../../src/modules/evidence/evidence.tables.ts';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { maskPseudonym } from '../../src/modules/evidence/pseudonym.ts';
import { evidenceBatches } from '../../src/modules/exports/evidence-reader.ts';
import { CSV_COLUMNS } from '../../src/modules/exports/export-formats.ts';
import { EXPORT_JOB, EXPORT_LEASE_MS, fileKeyOf } from '../../src/modules/exports/export-job.ts';
import { exportLine } from '../../src/modules/exports/export-writer.ts';
import { exportsRepo } from '../../src/modules/exports/exports.repo.ts';
import { runExport } from '../../src/modules/exports/exports.service.ts';
import { verifyInclusion } from '../../src/modules/ledger/merkle.ts';
import { newId } from '../../src/platform/ids.ts';
import type { JobRunner } from '../../src/platform/jobs/job-runner.ts';
import { jobsRepo } from '../../src/platform/jobs/jobs.repo.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { rawSql } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, newSubjectId, type ReadySite, recordConsent } from '../helpers/sites.ts';
import { subscribeWebhook } from '../helpers/webhooks.ts';
import {
  csvObjects,
  download,
  EXPORTS_DATA_DIR,
  exportFileExists,
  exportWorker,
  getExport,
  requestExport,
  sha256Hex,
  startExportsApp,
} from './helpers.ts';

/** Exports end to end over HTTP: both formats, digests, filters, escaping, audit. */
let t: TestApp;
let worker: JobRunner;
let tenant: Tenant;
let site: ReadySite;
let otherSite: ReadySite;
const subjects: string[] = [];

/** A user agent no browser sends: CR, LF, quotes, and backslashes (COPY's text format doubles them, and the export undoes it). */
const MULTILINE_AGENT = 'line one\r\nline "two", three\n C:\\dir\\ \\\\';

/** An evidence row stored directly, for content no browser could send (newlines, tabs). */
async function insertEvidence(channelId: string, fields: Partial<EvidenceRow>) {
  const subjectId = newSubjectId();
  subjects.push(subjectId);
  const row: EvidenceRow = {
    organizationId: tenant.organizationId,
    id: newId('evt'),
    environment: 'test',
    channelId,
    subjectPseudonym: await t.app.services.evidence.pseudonymize(tenant.organizationId, subjectId),
    decisions: { necessary: 'granted', analytics: 'denied' },
    configVersion: 1,
    policyVersion: '2024-05',
    source: 'api',
    language: 'en',
    gpc: false,
    origin: null,
    userAgent: null,
    ipPrefix: '203.0.113.0/24',
    region: 'DE',
    regionSource: 'header',
    regime: 'opt-in',
    // A US National GPP string: the COPY export writes the member as the batch path does.
    gppString: 'DBABLA~BVQqAAAAAgA.QA',
    tcString: null,
    tcf: null,
    recordedAt: new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000),
    receiptHash: '',
    receiptTokenHash: null,
    purgedAt: null,
    ...fields,
  };
  row.receiptHash = evidenceLeafHash(evidenceEventBody(row, 'unmasked'));
  await t.store.tx((tx) => evidenceRepo.insertMany(tx, [row]));
  return row;
}

async function record(target: ReadySite, headers: Record<string, string> = {}) {
  const subjectId = newSubjectId();
  subjects.push(subjectId);
  t.clock.advance(1000);
  return recordConsent(t, target, { subjectId }, { headers });
}

/** Evidence as GET /v1/evidence shows it (masked), by id. */
async function evidenceById(query = '') {
  const res = await t.http.get(`/v1/evidence?limit=100${query}`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  return new Map<string, any>(res.body.data.map((e: any) => [e.id, e]));
}

/** Requests an export, runs the worker, and downloads it, checking the digest headers. */
async function exportAndDownload(body: Record<string, unknown>) {
  const requested = await requestExport(t, tenant.testKey, body);
  await worker.runDue();
  const done = await getExport(t, tenant.testKey, requested.id);
  expect(done.status, JSON.stringify(done)).toBe('succeeded');
  const file = await download(t, tenant.testKey, requested.id);
  expect(file.status, file.text).toBe(200);
  const sha = sha256Hex(file.bytes);
  expect(sha).toBe(done.sha256);
  const base64 = Buffer.from(sha, 'hex').toString('base64');
  expect(file.headers.get('digest')).toBe(`sha-256=${base64}`);
  expect(file.headers.get('repr-digest')).toBe(`sha-256=:${base64}:`);
  expect(file.headers.get('etag')).toBe(`"${sha}"`);
  expect(file.headers.get('content-length')).toBe(String(file.bytes.length));
  expect(file.bytes.length).toBe(done.byteSize);
  expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${done.id}.${done.format}"`);
  // Full pseudonyms only: no raw subject id anywhere in the file.
  for (const subjectId of subjects) expect(file.text).not.toContain(subjectId);
  return { done, file };
}

beforeAll(async () => {
  t = await startExportsApp(20);
  worker = exportWorker(t);
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  otherSite = await createReadySite(t, tenant.testKey, { name: 'Blog' });
  await record(site);
  await record(site, { 'user-agent': '=HYPERLINK("https://evil.example/?a,b","click")' });
  await record(otherSite, { 'user-agent': '@SUM(1+1)' });
  await insertEvidence(site.channelId, { userAgent: MULTILINE_AGENT });
  await insertEvidence(site.channelId, { userAgent: '\tTAB', language: '-1+2', origin: '+cmd' });
  t.clock.advance(1000);
});
afterAll(() => t.close());

describe('exports: files', () => {
  it('JSONL: every line is the event as GET /v1/evidence shows it, pseudonym unmasked', async () => {
    const { done, file } = await exportAndDownload({});
    expect(file.headers.get('content-type')).toBe('application/x-ndjson');
    expect(file.text.endsWith('\n')).toBe(true);
    const lines = file.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const shown = await evidenceById();
    expect(lines).toHaveLength(5);
    expect(done.rowCount).toBe(5);
    expect(new Set(lines.map((l) => l.id))).toEqual(new Set(shown.keys()));
    for (const line of lines) {
      expect(line.subject.pseudonym).toMatch(/^psn_[0-9a-f]{64}$/);
      const masked = { ...line, subject: { pseudonym: maskPseudonym(line.subject.pseudonym) } };
      expect(JSON.stringify(masked)).toBe(JSON.stringify(shown.get(line.id)));
    }
    // Oldest first (recordedAt, then id): the ledger's order.
    const order = lines.map((l) => `${l.recordedAt} ${l.id}`);
    expect(order).toEqual([...order].sort());
    // Byte for byte the lines the batch path writes (on PostgreSQL the file comes from COPY, its
    // lines built by the database): same members, order, escapes (CR, LF, quotes, tab) and dates.
    const rows: EvidenceRow[] = [];
    const selection = {
      organizationId: tenant.organizationId,
      environment: 'test' as const,
      channelId: null,
      from: null,
      to: t.clock.now(),
    };
    for await (const batch of evidenceBatches(t.store.db, selection)) rows.push(...batch);
    expect(file.text).toBe(rows.map((row) => `${JSON.stringify(exportLine(row))}\n`).join(''));
  });

  it('CSV: a header row, one column per scalar field, decisions as JSON, RFC 4180 and formula-safe', async () => {
    const { file, done } = await exportAndDownload({ format: 'csv' });
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const header = file.text.slice(0, file.text.indexOf('\r\n')).split(',');
    expect(header).toEqual([...CSV_COLUMNS]);
    const rows = csvObjects(file.text);
    expect(rows).toHaveLength(done.rowCount);
    const shown = await evidenceById();
    for (const row of rows) {
      const event = shown.get(row.id);
      expect(maskPseudonym(row['subject.pseudonym'])).toBe(event.subject.pseudonym);
      expect(JSON.parse(row.decisions)).toEqual(event.decisions);
      expect(row['receipt.hash']).toBe(event.receipt.hash);
      expect(row.configVersion).toBe(String(event.configVersion));
      expect(row.gpc).toBe(String(event.gpc));
      expect(row.recordedAt).toBe(event.recordedAt);
      const formula = (v: string | null) => (v && /^[=+\-@\t\r]/.test(v) ? `'${v}` : (v ?? ''));
      for (const column of ['userAgent', 'language', 'origin', 'ipPrefix', 'source', 'channelId']) {
        expect(row[column], column).toBe(formula(event[column]));
      }
    }
    // The visitor inputs that would run as formulas are neutralized, the rest survive quoting.
    const agents = rows.map((r) => r.userAgent);
    expect(agents).toContain(`'=HYPERLINK("https://evil.example/?a,b","click")`);
    expect(agents).toContain(`'@SUM(1+1)`);
    expect(agents).toContain(`'\tTAB`);
    expect(agents).toContain(MULTILINE_AGENT);
    expect(file.text).toContain('"\'=HYPERLINK(""https://evil.example/?a,b"",""click"")"');
    expect(rows.map((r) => r.language)).toContain(`'-1+2`);
  });

  it('filters by channel and by recordedAt (inclusive bounds)', async () => {
    const shown = [...(await evidenceById()).values()];
    const { file } = await exportAndDownload({ channelId: otherSite.channelId });
    const ids = file.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(shown.filter((e) => e.channelId === otherSite.channelId).map((e) => e.id));

    const times = shown.map((e) => e.recordedAt).sort();
    const [from, to] = [times[1], times[3]];
    const ranged = await exportAndDownload({ from, to, format: 'csv' });
    const expected = shown.filter((e) => e.recordedAt >= from && e.recordedAt <= to).map((e) => e.id);
    expect(ranged.done.filters).toEqual({ channelId: null, from, to });
    expect(
      csvObjects(ranged.file.text)
        .map((r) => r.id)
        .sort(),
    ).toEqual(expected.sort());
    expect(ranged.done.rowCount).toBe(expected.length);
  });

  it('an export with no events is an empty file with a known digest', async () => {
    const { done, file } = await exportAndDownload({
      from: '2000-01-01T00:00:00Z',
      to: '2000-01-02T00:00:00Z',
    });
    expect(done.rowCount).toBe(0);
    expect(file.bytes.length).toBe(0);
    expect(done.sha256).toBe(sha256Hex(Buffer.alloc(0)));
  });

  it('skips purged events', async () => {
    // Purged as the retention job leaves an event (content gone, purged_at set); by hand, since a
    // real purge at this file's clock would reach other test files' evidence on a shared database.
    const purged = await insertEvidence(site.channelId, {});
    await rawSql(t.store).execute(
      sql`update evidence_events set purged_at = now(), subject_pseudonym = null, decisions = null
        where organization_id = ${tenant.organizationId} and id = ${purged.id}`,
    );
    const { file } = await exportAndDownload({ channelId: site.channelId });
    expect(file.text).not.toContain(purged.id);
  });

  it('records export.created and export.downloaded in the audit log, nothing more sensitive', async () => {
    const requested = await requestExport(t, tenant.testKey, {});
    await worker.runDue();
    // HEAD shows the headers and is not a download.
    const head = await fetch(`${t.baseUrl}/v1/exports/${requested.id}/file`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${tenant.testKey}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('digest')).toMatch(/^sha-256=/);
    expect((await download(t, tenant.testKey, requested.id)).status).toBe(200);
    const res = await t.http.get(`/v1/audit-logs?targetId=${requested.id}&limit=100`, {
      key: tenant.testKey,
    });
    expect(res.status, res.text).toBe(200);
    const actions = res.body.data.map((e: any) => e.action).sort();
    expect(actions).toEqual(['export.created', 'export.downloaded']);
    for (const entry of res.body.data) {
      expect(entry.target).toEqual({ type: 'export', id: requested.id });
      expect(entry.actor.type).toBe('api_key');
    }
  });

  it('emits export.succeeded to the webhook outbox in the transaction that marks it', async () => {
    await subscribeWebhook(t, tenant.testKey, ['export.succeeded']);
    const requested = await requestExport(t, tenant.testKey, {});
    await worker.runDue();
    const result = await rawSql(t.store).execute(
      sql`select type, data from webhook_events where organization_id = ${tenant.organizationId}
        and type = 'export.succeeded' and data->>'id' = ${requested.id}`,
    );
    const rows = (result as unknown as { rows: Array<{ data: any }> }).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0].data.status).toBe('succeeded');
    expect(rows[0].data.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('exports: includeProofs', () => {
  it('adds each line’s inclusion proof and ends with the signed tree head they verify against', async () => {
    const { done, file } = await exportAndDownload({ includeProofs: true });
    const lines = file.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const { treeHead } = lines.pop();
    expect(lines).toHaveLength(done.rowCount);
    expect(treeHead.treeSize).toBeGreaterThanOrEqual(lines.length);
    const root = Buffer.from(treeHead.rootHash, 'hex');
    for (const line of lines) {
      const { receipt, ledger, ...event } = line;
      // The leaf is the event without receipt and ledger, pseudonym unmasked.
      expect(evidenceLeafHash(event)).toBe(receipt.hash);
      const path = ledger.auditPath.map((h: string) => Buffer.from(h, 'hex'));
      const leaf = Buffer.from(receipt.hash, 'hex');
      expect(verifyInclusion(ledger.leafIndex, treeHead.treeSize, leaf, path, root)).toBe(true);
    }
  });
});

describe('exports: without HTTP', () => {
  it('runExport runs one export end to end (the benchmark’s entry point)', async () => {
    const services = t.app.services;
    const context = {
      organizationId: tenant.organizationId,
      environment: 'test' as const,
      actor: { type: 'system' as const, id: null },
      requestId: null,
      ipPrefix: null,
    };
    const created = await services.exports.create(t.store.scope(null), context, {
      channelId: null,
      from: null,
      to: null,
      format: 'csv',
      includeProofs: false,
    });
    const done = await runExport(services, { organizationId: created.organizationId, exportId: created.id });
    expect(done?.status).toBe('succeeded');
    const file = await download(t, tenant.testKey, created.id);
    expect(sha256Hex(file.bytes)).toBe(done?.sha256);
    // Its queued job finds the export finished and does nothing.
    await worker.runDue();
    expect((await getExport(t, tenant.testKey, created.id)).sha256).toBe(done?.sha256);
  });
});

describe('exports: a worker that dies mid-export', () => {
  /** A worker claims the export's job, marks the export running, writes part of a file, and dies. */
  async function dieWhileExporting(exportId: string) {
    const now = t.clock.now();
    const lease = new Date(now.getTime() + EXPORT_LEASE_MS);
    // On a shared PostgreSQL other files' export jobs may be due too: the dead worker hands them back.
    // A worker first queues again the jobs of workers that died before it (their lease lapsed).
    await t.store.tx((tx) => jobsRepo.requeueLapsed(tx, now));
    const claimedJobs = await t.store.tx((tx) =>
      jobsRepo.claim(tx, 'wkr_dead', now, lease, 100, [EXPORT_JOB]),
    );
    const claimed = claimedJobs.find((job) => job.payload.exportId === exportId);
    const others = claimedJobs.filter((job) => job !== claimed).map((job) => job.id);
    await t.store.tx((tx) => jobsRepo.release(tx, others, 'wkr_dead'));
    expect(claimed?.payload).toEqual({ organizationId: tenant.organizationId, exportId });
    const key = { organizationId: tenant.organizationId, id: exportId };
    const row = await t.store.tx((tx) =>
      exportsRepo.transition(tx, key, ['queued', 'running'], {
        status: 'running',
        startedAt: now,
      }),
    );
    const partial = await t.app.services.exports.storage.createWriteStream(fileKeyOf(row!));
    // The dead worker's half-written file: its process is gone, so is its descriptor.
    await new Promise<void>((resolve) => partial.stream.end('{"partial":', () => resolve()));
    return claimed;
  }

  it('is taken over once the lease lapses and completes with a correct file', async () => {
    const requested = await requestExport(t, tenant.testKey, { channelId: site.channelId });
    await dieWhileExporting(requested.id);
    expect((await getExport(t, tenant.testKey, requested.id)).status).toBe('running');
    expectProblemShape(await download(t, tenant.testKey, requested.id), 409, 'export_not_ready');
    await worker.runDue();
    expect((await getExport(t, tenant.testKey, requested.id)).status).toBe('running');

    t.clock.advance(EXPORT_LEASE_MS + 1);
    await worker.runDue();
    const done = await getExport(t, tenant.testKey, requested.id);
    expect(done.status).toBe('succeeded');
    const file = await download(t, tenant.testKey, requested.id);
    expect(sha256Hex(file.bytes)).toBe(done.sha256);
    const lines = file.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(done.rowCount);
    expect(lines.every((l) => l.channelId === site.channelId)).toBe(true);
    // The dead worker's partial file is swept once abandoned; the finished file stays.
    const dir = path.join(EXPORTS_DATA_DIR, 'exports', tenant.organizationId);
    const partials = () =>
      fs.readdirSync(dir).filter((name) => name.startsWith(requested.id) && name.endsWith('.tmp'));
    expect(partials()).toHaveLength(1);
    await t.app.services.exports.storage.removeAbandoned(0);
    expect(partials()).toHaveLength(0);
    expect(exportFileExists(tenant.organizationId, requested.id, 'jsonl')).toBe(true);
  });

  it('is failed, not left running, when workers keep dying until its attempts run out', async () => {
    await subscribeWebhook(t, tenant.testKey, ['export.failed']);
    const requested = await requestExport(t, tenant.testKey, {});
    for (let attempt = 1; attempt <= 3; attempt++) {
      await dieWhileExporting(requested.id);
      t.clock.advance(EXPORT_LEASE_MS + 1);
    }
    await worker.runDue();
    const failed = await getExport(t, tenant.testKey, requested.id);
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toMatch(/could not be completed after 3 attempts/);
    expect(failed.completedAt).not.toBeNull();
    expect(failed.sha256).toBeNull();
    const problem = expectProblemShape(
      await download(t, tenant.testKey, requested.id),
      409,
      'export_not_ready',
    );
    expect(problem.detail).toMatch(/failed/);
    const events = await rawSql(t.store).execute(
      sql`select data from webhook_events where organization_id = ${tenant.organizationId}
        and type = 'export.failed' and data->>'id' = ${requested.id}`,
    );
    expect((events as unknown as { rows: unknown[] }).rows).toHaveLength(1);
  });
});

describe('exports: expiry', () => {
  it('live evidence caps the file at its channel retention when that ends before 7 days', async () => {
    const liveSite = await createReadySite(t, tenant.liveKey, { retentionDays: 3 });
    const recorded = await recordConsent(t, liveSite);
    t.clock.advance(1000);
    const requested = await requestExport(t, tenant.liveKey, {});
    await worker.runDue();
    const done = await getExport(t, tenant.liveKey, requested.id);
    expect(done.status).toBe('succeeded');
    expect(done.rowCount).toBe(1);
    expect(Date.parse(done.expiresAt)).toBe(Date.parse(recorded.recordedAt) + 3 * 24 * 3600_000);

    // A long-retention channel: the default 7 days from completion.
    const longSite = await createReadySite(t, tenant.liveKey, { retentionDays: 365 });
    await recordConsent(t, longSite);
    t.clock.advance(1000);
    const long = await requestExport(t, tenant.liveKey, { channelId: longSite.channelId });
    await worker.runDue();
    const longDone = await getExport(t, tenant.liveKey, long.id);
    expect(Date.parse(longDone.expiresAt)).toBe(Date.parse(longDone.completedAt) + 7 * 24 * 3600_000);
  });

  it('test evidence caps the file at 24 h after its first event; then 410 and the file is deleted', async () => {
    const requested = await requestExport(t, tenant.testKey, { channelId: site.channelId });
    await worker.runDue();
    const done = await getExport(t, tenant.testKey, requested.id);
    const shown = [...(await evidenceById(`&channelId=${site.channelId}`)).values()];
    const first = shown.map((e) => e.recordedAt).sort()[0];
    expect(Date.parse(done.expiresAt)).toBe(Date.parse(first) + 24 * 3600_000);
    expect(Date.parse(done.expiresAt)).toBeLessThan(Date.parse(done.completedAt) + 7 * 24 * 3600_000);

    t.clock.set(new Date(Date.parse(done.expiresAt)));
    expectProblemShape(await download(t, tenant.testKey, requested.id), 410, 'export_expired');
    expect((await getExport(t, tenant.testKey, requested.id)).status).toBe('expired');
    await worker.runDue();
    expect(exportFileExists(tenant.organizationId, requested.id, 'jsonl')).toBe(false);
    const after = await getExport(t, tenant.testKey, requested.id);
    expect(after.status).toBe('expired');
    expectProblemShape(await download(t, tenant.testKey, requested.id), 410, 'export_expired');
  });
});
