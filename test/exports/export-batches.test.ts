import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvidenceRow } from '../../src/modules/evidence/evidence.tables.ts';
import { copyJsonlExport } from '../../src/modules/exports/evidence-copy.ts';
import { evidenceBatches } from '../../src/modules/exports/evidence-reader.ts';
import { exportLine } from '../../src/modules/exports/export-writer.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * The COPY export (PostgreSQL's path for plain JSONL) read in batches of one snapshot: no lock on
 * the evidence is held between two batches, so retention can detach and drop a partition then,
 * while the file stays one consistent set, byte for byte what the batch path writes.
 */
const HOUR = 3600_000;
/** Lines per batch here: the 35 events make five full batches, two inside one second's events. */
const BATCH = 7;

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

describe.skipIf(skipWith(postgresOnly()))(
  'exports: the COPY path in batches (PostgreSQL only: the embedded store has no COPY stream and exports through keyset batches)',
  () => {
    let t: TestApp;
    let tenant: Tenant;
    let other: Tenant;
    let site: ReadySite;

    beforeAll(async () => {
      t = await startTestApp({ env: SITES_TEST_ENV });
      tenant = await t.tenant();
      other = await t.tenant();
      site = await createReadySite(t, tenant.testKey);
      // 25 events in one second (the batches' boundaries fall between equal recordedAt, ordered by
      // id), then 10 a second apart.
      const second = new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000 - 60_000);
      t.clock.set(second);
      for (let i = 0; i < 25; i++) await recordConsent(t, site);
      for (let i = 0; i < 10; i++) {
        t.clock.advance(1000);
        await recordConsent(t, site);
      }
      t.clock.advance(1000);
    }, 120_000);
    afterAll(() => t?.close());

    it('holds no lock between batches: retention drops a partition meanwhile, and the file is one snapshot', async () => {
      // Another tenant's expired test hour, which retention drops once it can detach it.
      const present = t.clock.now();
      const expiredAt = new Date(present.getTime() - 26 * HOUR);
      await rawSql(t.store).execute(
        sql`select evidence_partition_create('test', ${expiredAt.toISOString()}::timestamptz)`,
      );
      const otherSite = await createReadySite(t, other.testKey);
      t.clock.set(expiredAt);
      await recordConsent(t, otherSite);
      t.clock.set(present);

      const selection = {
        organizationId: tenant.organizationId,
        environment: 'test' as const,
        channelId: null,
        from: null,
        to: present,
      };
      const expected: EvidenceRow[] = [];
      for await (const batch of evidenceBatches(t.store.db, selection)) expected.push(...batch);
      expect(expected).toHaveLength(35);
      const lastId = expected[expected.length - 1].id;

      const chunks: Buffer[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          chunks.push(Buffer.from(chunk));
          done();
        },
      });
      const between: Array<{ locks: number; dropped: string[]; deferred: unknown[] }> = [];
      const reader = await t.store.caughtUpReader(0);
      const written = await copyJsonlExport({
        snapshot: reader.snapshot!,
        selection,
        sink,
        batchRows: BATCH,
        progress: async () => {
          if (between.length > 0) return;
          // Locks on evidence_events' tables held by anyone but this query: none between batches.
          const locks = rowsOf<{ n: number }>(
            await rawSql(t.store).execute(sql`select count(*)::int as n from pg_locks l
              join pg_class c on c.oid = l.relation
              where c.relname like 'evidence_events%' and l.pid <> pg_backend_pid()`),
          )[0].n;
          const run = await t.app.services.evidence.purgeExpired();
          // After the snapshot: an event recorded within the export's range, and the last event of the
          // file purged row by row. Neither shows in the file.
          t.clock.set(new Date(present.getTime() - 500));
          await recordConsent(t, site);
          t.clock.set(present);
          await rawSql(
            t.store,
          ).execute(sql`update evidence_events set decisions = null, subject_pseudonym = null,
            purged_at = now() where organization_id = ${tenant.organizationId} and id = ${lastId}`);
          between.push({
            locks,
            dropped: run.droppedPartitions,
            deferred: run.deferred.filter((d) => d.step === 'drop_partition'),
          });
        },
      });

      const expiredHour = `evidence_events_test_p${expiredAt.toISOString().slice(0, 13).replace(/[-T]/g, '')}`;
      expect(between).toEqual([{ locks: 0, dropped: expect.arrayContaining([expiredHour]), deferred: [] }]);
      const file = Buffer.concat(chunks).toString('utf8');
      expect(file).toBe(expected.map((row) => `${JSON.stringify(exportLine(row))}\n`).join(''));
      expect(written.rowCount).toBe(35);
      expect(written.byteSize).toBe(Buffer.byteLength(file));
      expect(written.firstRecordedAt).toEqual(new Map([[site.channelId, expected[0].recordedAt]]));
    }, 120_000);
  },
);
