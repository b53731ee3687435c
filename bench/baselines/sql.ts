import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** One query function over the bench's database: a pg pool (PostgreSQL) or PGlite (embedded). */
export async function openSql(): Promise<(text: string, params?: unknown[]) => Promise<{ rows: any[] }>> {
  if (process.env.DATABASE_URL) {
    // The size of the service's pool (createPostgresStore), so both sides have as many connections.
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    return (text, params) => pool.query(text, params as unknown[]);
  }
  const db = await PGlite.create({ dataDir: process.env.BASELINE_DATA_DIR });
  return (text, params) => db.query(text, params);
}
