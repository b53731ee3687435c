/**
 * Scenario e, service side: runs one JSONL export of the organization's live evidence with the
 * exports module's own job code (no HTTP, no job runner), in this process alone so that its peak
 * RSS is the export's. Prints one JSON line: rows, seconds, bytes, peak RSS.
 */
import fs from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { runExport } from '../../src/modules/exports/exports.service.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createEmbeddedStore, createPostgresStore } from '../../src/platform/db/store.ts';
import { createServices } from '../../src/services.ts';
import { rssSampler } from './rss.ts';

const rss = rssSampler();
const config = loadConfig();
const store = config.databaseUrl
  ? createPostgresStore(config.databaseUrl)
  : await createEmbeddedStore({ dataDir: `${config.dataDir}/pgdata` });
const services = createServices({ store, clock: systemClock, config });
const organizationId = process.env.ORGANIZATION_ID as string;
const created = await services.exports.create(
  store.scope(null),
  {
    organizationId,
    environment: 'live',
    actor: { type: 'system', id: null },
    requestId: null,
    ipPrefix: null,
  },
  { channelId: null, from: null, to: null, format: 'jsonl', includeProofs: false },
);
const started = process.hrtime.bigint();
const done = await runExport(services, { organizationId, exportId: created.id });
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
if (done?.status !== 'succeeded') throw new Error(`export ended ${done?.status}: ${done?.failureReason}`);
const peakRssMb = rss.peakMb();
rss.stop();
// The file is the bench's to drop: it is as large as the evidence.
if (done.fileKey) fs.rmSync(`${config.dataDir}/exports/${done.fileKey}`, { force: true });
await store.close();
process.stdout.write(
  `${JSON.stringify({ rows: done.rowCount, seconds, bytes: done.byteSize, rowsPerSec: (done.rowCount ?? 0) / seconds, peakRssMb })}\n`,
);
