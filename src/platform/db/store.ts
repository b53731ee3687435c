import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';

/** A database handle or an open transaction: repos take either. */
export type Db = PgDatabase<PgQueryResultHKT, Record<string, never>>;

export interface Store {
  kind: 'embedded' | 'postgres';
  /**
   * The handle to query with: inside `tx` (or any code it calls) this is the open transaction,
   * elsewhere the pool. Read it at call time (`store.db`), never keep it in a variable: on PGlite
   * a query outside the open transaction would wait for that transaction, forever.
   */
  readonly db: Db;
  /**
   * Runs fn in one transaction. Called inside another, it joins the outer one, so a service's
   * writes and a caller's (an idempotency record, say) commit together.
   */
  tx<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Runs fn in a savepoint of the current transaction (or a new transaction): a failure undoes only fn. */
  savepoint<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** True inside `tx` (or code it calls): writes made now commit with that transaction. */
  inTransaction(): boolean;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Raw PGlite instance (embedded only), for test templates. */
  pglite?: PGlite;
  /** Raw pool (postgres only), for work drizzle cannot express (COPY, advisory locks on one session). */
  pool?: pg.Pool;
}

const ambient = new AsyncLocalStorage<Db>();

/**
 * A store over the driver's base handle. `db` must stay a getter on the returned object (a spread
 * would copy its value once and lose the ambient transaction).
 */
function makeStore(
  base: Db,
  fields: Omit<Store, 'db' | 'tx' | 'savepoint' | 'inTransaction'>,
  /** Opens a top-level transaction; the base handle's own `transaction` when omitted. */
  begin: <T>(fn: (tx: Db) => Promise<T>) => Promise<T> = (fn) => base.transaction(fn),
): Store {
  const open = <T>(on: Db | null, fn: (tx: Db) => Promise<T>) => {
    const inAmbient = (tx: Db) => ambient.run(tx, () => fn(tx));
    return on ? on.transaction((tx) => inAmbient(tx as unknown as Db)) : begin(inAmbient);
  };
  const store = {
    ...fields,
    tx: <T>(fn: (tx: Db) => Promise<T>): Promise<T> => {
      const current = ambient.getStore();
      return current ? fn(current) : open(null, fn);
    },
    savepoint: <T>(fn: (tx: Db) => Promise<T>): Promise<T> => open(ambient.getStore() ?? null, fn),
    inTransaction: () => ambient.getStore() !== undefined,
  };
  Object.defineProperty(store, 'db', { get: () => ambient.getStore() ?? base, enumerable: true });
  return store as Store;
}

// int8 and numeric as JS numbers on both stores: counts and sizes stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function createPostgresStore(databaseUrl: string, options: { max?: number } = {}): Store {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its server emits 'error' on the pool; without a listener the process dies.
  pool.on('error', () => {});
  // A checked-out client whose server goes away emits 'error' too, and the pool listens only while
  // it is idle: unheard, that event is an uncaught exception that kills the process mid-burst. Its
  // queries are rejected anyway (the request answers 503), so the event itself needs no handling.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  /**
   * drizzle's transaction on a pool sends BEGIN before its try/finally, so a connection lost at that
   * moment is never released and the pool shrinks by one for good (pool.end() then hangs). Here the
   * client is checked out and always released by us; the pool drops it if it is broken.
   */
  const begin = async <T>(fn: (tx: Db) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      return await (drizzleNodePg(client) as unknown as Db).transaction(fn);
    } finally {
      client.release();
    }
  };
  return makeStore(
    drizzleNodePg(pool) as unknown as Db,
    {
      kind: 'postgres',
      pool,
      ping: async () => {
        await pool.query('select 1');
      },
      close: () => pool.end(),
    },
    begin,
  );
}

export interface EmbeddedOptions {
  /** Directory of the data; omitted means in memory. */
  dataDir?: string;
  /** A dump (dumpDataDir) to start from, used by tests to skip migrations. */
  loadDataDir?: Blob | File;
}

export async function createEmbeddedStore(options: EmbeddedOptions = {}): Promise<Store> {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true });
  const client = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    parsers: { 20: (v: string) => Number(v) },
  });
  return makeStore(drizzlePglite(client) as unknown as Db, {
    kind: 'embedded',
    pglite: client,
    ping: async () => {
      await client.query('select 1');
    },
    close: () => client.close(),
  });
}

/**
 * PGlite is single-process: a second process opening the same directory would corrupt it.
 * The holder keeps a lock file with its pid; a stale one (dead pid) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'consent-service.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(fs.readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new DataDirInUseError(dataDir, pid);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirInUseError(dataDir, 0);
}

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `the embedded data directory ${dataDir} is in use by another process${pid ? ` (pid ${pid})` : ''}; stop it, or set DATABASE_URL to use PostgreSQL`,
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
