/**
 * Scenario e, baseline: `COPY (select …) TO STDOUT` of the same rows (the organization's live,
 * unpurged evidence, in recordedAt order) through pg-copy-streams into a file, as the export
 * writes one. PostgreSQL only. Prints one JSON line: rows, seconds, bytes, peak RSS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { rssSampler } from './rss.ts';

const rss = rssSampler();
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const organizationId = (process.env.ORGANIZATION_ID as string).replace(/'/g, "''");
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-copy-')), 'copy.txt');
const started = process.hrtime.bigint();
const stream = client.query(
  copyTo(`copy (select * from evidence_events
    where organization_id = '${organizationId}' and environment = 'live' and purged_at is null
    order by recorded_at, id) to stdout`),
);
await pipeline(stream, fs.createWriteStream(file));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const rows = stream.rowCount;
const bytes = fs.statSync(file).size;
const peakRssMb = rss.peakMb();
rss.stop();
fs.rmSync(path.dirname(file), { recursive: true, force: true });
await client.end();
process.stdout.write(`${JSON.stringify({ rows, seconds, bytes, rowsPerSec: rows / seconds, peakRssMb })}\n`);
