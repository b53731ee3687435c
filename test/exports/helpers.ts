import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { EXPORT_JOB, EXPORT_LEASE_MS, EXPORT_TASK_MS } from '../../src/modules/exports/export-job.ts';
import { createJobRunner } from '../../src/platform/jobs/job-runner.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { SITES_TEST_ENV } from '../helpers/sites.ts';
import { LOCAL_WEBHOOKS_ENV } from '../helpers/webhooks.ts';

/**
 * One export directory for every export test file and both stores: on a shared PostgreSQL a file's
 * worker may finish another file's export, and the file must then be where that other file looks.
 * Keys start with the (unique) organization id, so runs never collide.
 */
export const EXPORTS_DATA_DIR = path.join(os.tmpdir(), 'consent-service-exports-tests');

/**
 * A test app whose manual clock starts `yearsAhead` years in the future. On a shared PostgreSQL,
 * other test files' workers run at the present and never reach these export jobs (due in the
 * future), and this file's jobs and purges never reach their data. Each export test file uses its
 * own offset; only the file with the worker runs export jobs.
 */
export async function startExportsApp(yearsAhead: number): Promise<TestApp> {
  const t = await startTestApp({
    env: { ...SITES_TEST_ENV, ...LOCAL_WEBHOOKS_ENV, DATA_DIR: EXPORTS_DATA_DIR },
  });
  t.clock.set(new Date(Date.now() + yearsAhead * 365 * 24 * 3600_000));
  return t;
}

/**
 * A runner for export jobs only, as worker.ts registers them. The app's full worker would run
 * other modules' tasks (retention, say) at this file's future clock, which on a shared PostgreSQL
 * would purge other test files' data.
 */
export function exportWorker(t: TestApp) {
  const services = t.app.services;
  const runner = createJobRunner({ store: t.store, clock: t.clock, queue: services.jobs, log: t.app.log });
  runner.register(
    EXPORT_JOB,
    async (payload, { heartbeat }) => void (await services.exports.run(payload, heartbeat)),
    {
      leaseMs: EXPORT_LEASE_MS,
      onExhausted: (tx, job) => services.exports.onExhausted(tx, job),
    },
  );
  runner.every('exports.expire', EXPORT_TASK_MS, async () => {
    await services.exports.expireDue();
  });
  return runner;
}

export interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  body: any;
}

/** GET /v1/exports/:id/file with the raw bytes kept (the digest is over bytes, not text). */
export async function download(t: TestApp, key: string, id: string): Promise<Download> {
  const response = await fetch(`${t.baseUrl}/v1/exports/${id}/file`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  const body = /^application\/(problem\+)?json/.test(response.headers.get('content-type') ?? '')
    ? JSON.parse(text)
    : null;
  return { status: response.status, headers: response.headers, bytes, text, body };
}

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** POST /v1/exports, asserting the 202 and its Location; returns the export. */
export async function requestExport(t: TestApp, key: string, body: Record<string, unknown> = {}) {
  const res = await t.http.post('/v1/exports', { key, body });
  expect(res.status, res.text).toBe(202);
  expect(res.headers.get('location')).toBe(`/v1/exports/${res.body.data.id}`);
  return res.body.data as Record<string, any>;
}

export async function getExport(t: TestApp, key: string, id: string) {
  const res = await t.http.get(`/v1/exports/${id}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Record<string, any>;
}

/**
 * A strict RFC 4180 reader (quoted fields, doubled quotes, CRLF records), independent of the
 * writer under test.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' && field === '') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else field += text[i++];
      }
    } else if (c === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else if (c === '"' || c === '\r' || c === '\n') {
      throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
    } else field += text[i++];
  }
  if (field !== '' || record.length > 0) throw new Error('last record not CRLF-terminated');
  return records;
}

/** CSV records as objects keyed by the header row. */
export function csvObjects(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  for (const row of rows) expect(row).toHaveLength(header.length);
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

export function exportFileExists(organizationId: string, id: string, ext: string): boolean {
  return fs.existsSync(path.join(EXPORTS_DATA_DIR, 'exports', organizationId, `${id}.${ext}`));
}
