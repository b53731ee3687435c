import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageAndCopy } from '../../scripts/evidence-partitions-online.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';
import { withDatabase } from '../helpers/store-templates.ts';

/**
 * The partitioning of a filled evidence_events on PostgreSQL, the way the guide tells an operator to do
 * it: a database at the migration before (50,000 events), the online copy while writes go on, then the
 * upgrade's migration, which copies the rest and swaps the names. Every event is there after, unchanged.
 */
const databaseUrl = process.env.DATABASE_URL;
const migrationsFolder = fileURLToPath(new URL('../../src/platform/db/migrations/', import.meta.url));
const EVENTS = 50_000;

describe.skipIf(skipWith(postgresOnly()))(
  'evidence_events partitioning on a filled table (PostgreSQL)',
  () => {
    const name = `h45mig_${process.pid}_${Date.now()}`;
    let admin: pg.Client;
    let url: string;
    let before: string;

    /**
     * The migrations up to `evidence_partitions` (not including it, or including it with `through`),
     * in a folder of their own: later migrations (a new column, say) would change the digest.
     */
    function migrationsBefore(through = false): string {
      const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
      cpSync(migrationsFolder, dir, { recursive: true });
      const journalFile = path.join(dir, 'meta', '_journal.json');
      const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
      const at = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith('_evidence_partitions'));
      journal.entries = journal.entries.slice(0, through ? at + 1 : at);
      writeFileSync(journalFile, JSON.stringify(journal));
      return dir;
    }

    async function withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    }

    /**
     * A digest of every event in key order: of all its columns, or of `row`, an expression over the
     * event `e` (a fixed list of columns, which a later migration's new column does not change).
     */
    const digest = (client: pg.Client, row = 'e::text') =>
      client
        .query(`select count(*)::int as n, md5(string_agg(${row}, '|' order by organization_id, id)) as h
        from evidence_events e`)
        .then((r) => `${r.rows[0].n}:${r.rows[0].h}`);

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`create database "${name}"`);
      url = withDatabase(databaseUrl!, name);
      const dir = migrationsBefore();
      try {
        await withClient((client) => migrate(drizzle(client), { migrationsFolder: dir }));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // Half live over the last seven months, half test over the last two days, two organizations.
      await withClient((client) =>
        client.query(`
        insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
          config_version, policy_version, source, gpc, region, recorded_at, receipt_hash)
        select 'org_' || (g % 2), 'evt_' || md5(g::text), case when g % 2 = 0 then 'live' else 'test' end,
          'ch_' || (g % 7), 'psn_' || md5((g % 5000)::text), '{"analytics":"granted"}'::jsonb, 1, '1',
          case when g % 50 = 0 then 'api' else 'banner' end, false, 'DE',
          date_trunc('second', now() - case when g % 2 = 0 then (g % 210) * interval '1 day'
            else ((g / 2) % 48) * interval '1 hour' end),
          encode(sha256(g::text::bytea), 'hex')
        from generate_series(1, ${EVENTS}) g`),
      );
    }, 120_000);

    afterAll(async () => {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    });

    it('copies online in batches while events are written, then swaps in the migration; every event stays', async () => {
      const pendingBefore = await withClient(async (client) => {
        before = await digest(client);
        return (await client.query('select count(*)::int as n from ledger_pending')).rows[0].n;
      });
      expect(pendingBefore).toBe(EVENTS);

      // The previous version keeps writing during the copy: new events, and a purge that empties some.
      let written = 0;
      const copied = await withClient((writer) =>
        stageAndCopy(url, {
          batch: 7_000,
          onBatch: async () => {
            written++;
            await writer.query(`
            insert into evidence_events (organization_id, id, environment, channel_id, recorded_at, receipt_hash)
            values ('org_0', 'evt_during_${written}', 'live', 'ch_1', date_trunc('second', now()), md5('${written}'))`);
            await writer.query(`update evidence_events set decisions = null, purged_at = now()
            where organization_id = 'org_1' and id = (select min(id) from evidence_events where organization_id = 'org_1' and purged_at is null)`);
          },
        }),
      );
      expect(copied).toBeGreaterThanOrEqual(EVENTS);
      expect(written).toBeGreaterThan(5);
      const [expected, pendingAfterWrites] = await withClient(async (client) => [
        await digest(client),
        (await client.query('select count(*)::int as n from ledger_pending')).rows[0].n,
      ]);
      expect(expected).not.toBe(before);

      // The upgrade: the full migration folder; only the rest and the changed events are copied.
      const upgrade = migrationsBefore(true);
      try {
        await withClient((client) => migrate(drizzle(client), { migrationsFolder: upgrade }));
      } finally {
        rmSync(upgrade, { recursive: true, force: true });
      }

      await withClient(async (client) => {
        const kind = await client.query(
          `select relkind from pg_class where oid = 'evidence_events'::regclass`,
        );
        expect(kind.rows[0].relkind).toBe('p');
        expect(await digest(client)).toBe(expected);
        // No event was queued for the ledger again, and new ones still are.
        expect((await client.query('select count(*)::int as n from ledger_pending')).rows[0].n).toBe(
          pendingAfterWrites,
        );
        // Live events sit in their months, recent test events in their hours, older ones in DEFAULT.
        const spread = await client.query(`
        select tableoid::regclass::text as part, count(*)::int as n from evidence_events group by 1`);
        const parts = new Map(spread.rows.map((r) => [r.part as string, r.n as number]));
        expect(parts.get('evidence_events_live_default') ?? 0).toBe(0);
        expect(
          [...parts.keys()].filter((p) => p.startsWith('evidence_events_live_p')).length,
        ).toBeGreaterThanOrEqual(7);
        expect(
          [...parts.keys()].filter((p) => p.startsWith('evidence_events_test_p')).length,
        ).toBeGreaterThanOrEqual(24);
        // The helpers of the copy are gone.
        const leftovers = await client.query(`select to_regclass('evidence_events_changed') as a,
        to_regclass('evidence_events_next') as b, to_regprocedure('evidence_partitions_swap()') as c`);
        expect(leftovers.rows[0]).toEqual({ a: null, b: null, c: null });
        await client.query(`
        insert into evidence_events (organization_id, id, environment, channel_id, recorded_at, receipt_hash)
        values ('org_0', 'evt_after', 'test', 'ch_1', date_trunc('second', now()), md5('after'))`);
        expect((await client.query('select count(*)::int as n from ledger_pending')).rows[0].n).toBe(
          pendingAfterWrites + 1,
        );
      });

      // Then the rest of the upgrade: the later migrations, among them the one that moves the live
      // DEFAULT partition's events into months of their own and drops it. Nothing is lost on the way.
      const keysDigest = (client: pg.Client) =>
        digest(
          client,
          "concat_ws(',', organization_id, id, environment, recorded_at, receipt_hash, decisions, purged_at)",
        );
      const beforeRest = await withClient(keysDigest);
      await withClient((client) => migrate(drizzle(client), { migrationsFolder }));
      await withClient(async (client) => {
        expect(await keysDigest(client)).toBe(beforeRest);
        const live = await client.query(`
        select to_regclass('evidence_events_live_default')::text as live_default,
          count(*)::int as live_events,
          count(*) filter (where tableoid::regclass::text like 'evidence_events_live_p%')::int as in_months
        from evidence_events where environment = 'live'`);
        expect(live.rows[0].live_default).toBeNull();
        expect(live.rows[0].live_events).toBeGreaterThan(EVENTS / 2);
        expect(live.rows[0].in_months).toBe(live.rows[0].live_events);
      });
    }, 300_000);
  },
);
