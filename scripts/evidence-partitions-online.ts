/**
 * Prepares the partitioning of a large evidence_events table while the previous version keeps
 * serving (docs/guides/postgresql.md, "Partitions"). Run by hand against the primary, before upgrading:
 *
 *   DATABASE_URL=postgres://… npx tsx scripts/evidence-partitions-online.ts [--batch 10000]
 *
 * It runs the functions of migration `evidence_partitions` (the statements before its
 * `END OF FUNCTIONS` line), builds the empty partitioned table `evidence_events_next`, starts noting
 * every event written from then on, and copies the table in batches of its primary-key order, each
 * batch its own transaction. It may be stopped and run again: it goes on from the last batch. The
 * upgrade's migration then copies only the rest and what changed since, and swaps the names in one
 * short transaction (writes wait during it, reads go on).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';

const migrations = new URL('../src/platform/db/migrations/', import.meta.url);

/** The statements of the migration that define its functions. */
export function partitionFunctionsSql(): string {
  const file = readdirSync(migrations).find((name) => name.endsWith('_evidence_partitions.sql'));
  if (!file) throw new Error('migration evidence_partitions not found');
  const text = readFileSync(new URL(file, migrations), 'utf8');
  const end = text.indexOf('-- END OF FUNCTIONS');
  if (end < 0) throw new Error('migration evidence_partitions has no END OF FUNCTIONS line');
  return text.slice(0, end).replaceAll('--> statement-breakpoint', '');
}

/** Stages evidence_events_next and copies every event into it; returns how many were copied. */
export async function stageAndCopy(
  databaseUrl: string,
  options: { batch?: number; onBatch?: (copied: number) => Promise<void> | void } = {},
): Promise<number> {
  const batch = options.batch ?? 10_000;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const kind = await client.query(`select relkind from pg_class where oid = 'evidence_events'::regclass`);
    if (kind.rows[0]?.relkind === 'p') return 0;
    await client.query(partitionFunctionsSql());
    await client.query(
      `select evidence_partitions_stage((select min(recorded_at) from evidence_events where environment = 'live'))`,
    );
    let copied = 0;
    for (;;) {
      const result = await client.query('select evidence_partitions_copy_batch($1) as n', [batch]);
      const n = Number(result.rows[0].n);
      copied += n;
      await options.onBatch?.(copied);
      if (n < batch) return copied;
    }
  } finally {
    await client.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { batch: { type: 'string' } } });
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set');
    process.exit(2);
  }
  const started = Date.now();
  const copied = await stageAndCopy(url, {
    batch: values.batch ? Number(values.batch) : undefined,
    onBatch: (n) => void process.stdout.write(`\r${n} events copied`),
  });
  console.log(`\n${copied} events copied in ${((Date.now() - started) / 1000).toFixed(1)} s; now upgrade.`);
}
