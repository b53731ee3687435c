import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { createPgListener, type ListenHandler, type RemoteListener } from './listener.ts';

/** drizzle's handle on either driver: the pool, or an open transaction. */
type Handle = PgDatabase<PgQueryResultHKT, Record<string, never>>;

/**
 * A handle for reads: the pool, or an open transaction (a `Tx` is a `Db`). It has no `insert`,
 * `update`, `delete` or `transaction`: writes take a `Tx`.
 */
export type Db = Omit<Handle, 'insert' | 'update' | 'delete' | 'transaction'>;

declare const txBrand: unique symbol;

/**
 * An open transaction (or a savepoint of one), as only the store hands it out: `store.tx`,
 * `store.savepoint`, `DbScope.write`. Repository writes (and locking reads: FOR UPDATE, advisory
 * locks) take a `Tx`, so a write on the pool, or outside the transaction the caller is in, does
 * not compile.
 */
export type Tx = Handle & { readonly [txBrand]: true };

/**
 * The database as a piece of work sees it: inside a transaction (an idempotent request's, whose
 * record commits with the work's writes) or outside any. Built by `store.scope(tx)`; a request's is
 * `request.db`. Reads go through `read`, writes through `write`, so neither can end up beside the
 * transaction.
 */
export interface DbScope {
  /** For reads: the open transaction when there is one, else the pool. */
  readonly read: Db;
  /** Runs fn in the open transaction when there is one (its writes commit with it), else in a new one. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export interface Store {
  kind: 'embedded' | 'postgres';
  /**
   * The pool (PostgreSQL) or the embedded instance: for reads outside any transaction. Code that
   * runs inside a transaction is handed that transaction (a `Tx`, or a `DbScope`) and queries
   * through it: on PGlite a query on `db` while a transaction of the same flow is open would wait
   * for that transaction forever.
   */
  readonly db: Db;
  /** Runs fn in a new transaction, then the afterCommit hooks registered on it. */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The scope of work inside `tx` when given, else outside any transaction (see DbScope). */
  scope(tx: Tx | null): DbScope;
  /** Runs fn in a savepoint of `tx`: a failure undoes only fn. */
  savepoint<T>(tx: Tx, fn: (savepoint: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs fn once `tx` (or the transaction it is a savepoint of) commits, or at once when tx is null,
   * for work that must only see committed data, such as dropping a cache. fn must not throw.
   */
  afterCommit(tx: Tx | null, fn: () => void): void;
  /**
   * Tells every listener of `channel`, in every process on this database, that something changed
   * once `tx` commits (at once when tx is null): this process's listeners synchronously right after
   * the commit (so the caller's next request already sees it), other processes' through PostgreSQL
   * NOTIFY, which is delivered on commit.
   */
  notify(tx: Tx | null, channel: string): Promise<void>;
  /**
   * Listens to `channel` until the returned function is called. See ListenEvent: a listener that
   * keeps derived state (a cache) must drop it on every event and trust it only while `listening`.
   */
  listen(channel: string, handler: ListenHandler): () => void;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The PGlite instance (embedded only), for test templates and statements drizzle cannot express. */
  pglite?: PGlite;
  /** The pool (postgres only), for work drizzle cannot express (COPY, advisory locks on one session). */
  pool?: pg.Pool;
}

/** A store over the driver's base handle. */
function makeStore(
  base: Handle,
  fields: Omit<Store, 'db' | 'tx' | 'scope' | 'savepoint' | 'afterCommit' | 'notify' | 'listen'>,
  options: {
    /** Opens a top-level transaction; the base handle's own `transaction` when omitted. */
    begin?: <T>(fn: (tx: Handle) => Promise<T>) => Promise<T>;
    /** Other processes' notifications (PostgreSQL); none for the single-process embedded store. */
    remote?: RemoteListener;
  } = {},
): Store {
  const begin = options.begin ?? (<T>(fn: (tx: Handle) => Promise<T>) => base.transaction(fn));
  /** What waits for each open transaction's commit; a savepoint shares its transaction's list. */
  const commitHooks = new WeakMap<object, Array<() => void>>();
  const hooksOf = (tx: object) => {
    const hooks = commitHooks.get(tx);
    if (!hooks) throw new Error('not a transaction opened by this store (store.tx or store.savepoint)');
    return hooks;
  };
  const afterCommit = (tx: Tx | null, fn: () => void) => {
    if (tx === null) fn();
    else hooksOf(tx).push(fn);
  };
  const transaction = async <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
    const hooks: Array<() => void> = [];
    const result = await begin((tx) => {
      commitHooks.set(tx, hooks);
      return fn(tx as Tx);
    });
    for (const run of hooks) run();
    return result;
  };
  const outside: DbScope = { read: base, write: transaction };
  const local = new Map<string, Set<ListenHandler>>();
  return {
    ...fields,
    db: base,
    tx: transaction,
    scope: (tx) => (tx ? { read: tx, write: (fn) => fn(tx) } : outside),
    savepoint: (tx, fn) => {
      const hooks = hooksOf(tx);
      return tx.transaction((savepoint) => {
        commitHooks.set(savepoint, hooks);
        return fn(savepoint as unknown as Tx);
      });
    },
    afterCommit,
    notify: async (tx, channel) => {
      if (options.remote) await (tx ?? base).execute(sql`select pg_notify(${channel}, '')`);
      afterCommit(tx, () => {
        for (const handler of local.get(channel) ?? []) handler('notified');
      });
    },
    listen: (channel, handler) => {
      const set = local.get(channel) ?? new Set();
      local.set(channel, set);
      set.add(handler);
      let stopRemote: (() => void) | null = null;
      if (options.remote) stopRemote = options.remote.listen(channel, handler);
      // Embedded: no other process can write, so this process's own notifications are all there is.
      else queueMicrotask(() => handler('listening'));
      return () => {
        set.delete(handler);
        stopRemote?.();
      };
    },
    close: async () => {
      await options.remote?.close();
      await fields.close();
    },
  };
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
  const begin = async <T>(fn: (tx: Handle) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      return await (drizzleNodePg(client) as unknown as Handle).transaction(fn);
    } finally {
      client.release();
    }
  };
  return makeStore(
    drizzleNodePg(pool) as unknown as Handle,
    {
      kind: 'postgres',
      pool,
      ping: async () => {
        await pool.query('select 1');
      },
      close: () => pool.end(),
    },
    { begin, remote: createPgListener(databaseUrl) },
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
  return makeStore(drizzlePglite(client) as unknown as Handle, {
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
