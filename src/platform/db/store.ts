import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { lockHeld, lockPath, ownLock, readLock } from './data-dir-lock.mjs';
import { createHeavyReads, createLightWork, type HeavyReads, poolHeavyReadLimits } from './heavy-reads.ts';
import { openPgPool } from './host-list-pool.ts';
import { createPgListener, type ListenHandler, type RemoteListener } from './listener.ts';
import { type ReplicaHealth, ReplicaReadPool } from './read-replica.ts';
import { readInSnapshot, type SnapshotSession } from './snapshot-read.ts';
import { encodeTextArrays } from './text-array.ts';
import { withTxRetry } from './tx-retry.ts';

/** drizzle's handle on either driver: the pool, or an open transaction. */
type Handle = PgDatabase<PgQueryResultHKT, Record<string, never>>;

/**
 * A handle for reads: the pool, or an open transaction (a `Tx` is a `Db`). It has no `insert`,
 * `update`, `delete`, `transaction` or `execute` (raw SQL): writes take a `Tx`, and a raw read goes
 * through `readRows` (rows.ts), so a raw write on the pool does not compile.
 */
export type Db = Omit<Handle, 'insert' | 'update' | 'delete' | 'transaction' | 'execute'>;

/** How `store.tx` isolates its transaction: PostgreSQL's default (READ COMMITTED) unless told. */
export interface TxOptions {
  isolation?: 'repeatable read' | 'serializable';
}

/** A prepared statement's identity: its name (null: unnamed, planned on every run) and text. */
export interface Statement {
  readonly name: string | null;
  readonly text: string;
}

/** A read in one snapshot of the database (PostgreSQL only): see snapshot-read.ts. */
export type SnapshotReader = <T>(fn: (session: SnapshotSession) => Promise<T>) => Promise<T>;

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
   * for that transaction forever, so the transaction guard (see `StoreOptions.guard`) makes it throw.
   */
  readonly db: Db;
  /**
   * For reads that may lag the writes a little (DATABASE_READ_URL, a replica): evidence lists,
   * consent-state reads, analytics. `db` itself when there is no read URL (and on the embedded store).
   * Never for a read that must see a write just made: that reads `db`.
   */
  readonly replica: Db;
  /**
   * The replica's handles when it is a standby in recovery of the primary that has replayed
   * everything the primary had written when this is called (waiting up to `timeoutMs`), else the
   * primary's: for reads that must include every write committed before they started (an
   * export). A read URL that is not a standby in recovery never serves them (read-replica.ts).
   * `snapshot` (a COPY-capable read in one snapshot) is absent on the embedded store.
   */
  caughtUpReader(timeoutMs: number): Promise<{ db: Db; snapshot?: SnapshotReader }>;
  /**
   * Runs fn in a new transaction, then the afterCommit hooks registered on it. A transaction that
   * loses a serialization conflict or a deadlock (40001, 40P01) runs again from the start, a few
   * times with a jittered backoff (tx-retry.ts): fn must do nothing but database work through tx
   * (and register afterCommit hooks, which only the run that commits keeps).
   */
  tx<T>(fn: (tx: Tx) => Promise<T>, options?: TxOptions): Promise<T>;
  /**
   * Runs one statement on its own (its own implicit transaction, retried as `tx` is): a named
   * statement on PostgreSQL (parsed and planned once per pooled connection), the same text on the
   * embedded store. text[] parameters may be given as arrays of strings. For the few hot writes
   * drizzle's builder is too slow for; modules never reach the driver itself.
   */
  statement<R = Record<string, unknown>>(statement: Statement, values: unknown[]): Promise<R[]>;
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
  /**
   * Turns for heavy reads (heavy-reads.ts): analytics over long ranges, export batches, lookups of
   * many subjects run each statement as a turn of their organization, so they never take all of
   * the store from the light work every tenant needs.
   */
  readonly heavyReads: HeavyReads;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The embedded store's data directory; absent in memory and on PostgreSQL. */
  dataDir?: string;
  /** The PGlite instance (embedded only), for test templates and statements drizzle cannot express. */
  pglite?: PGlite;
  /** The pool (postgres only), for work drizzle cannot express (COPY, advisory locks on one session). */
  pool?: pg.Pool;
  /** The replica's pool (DATABASE_READ_URL), when one is set: its reads fall back to `pool` (read-replica.ts). */
  replicaPool?: pg.Pool;
  /** DATABASE_READ_URL's state and fallbacks (readiness, metrics, logs); null without one. */
  replicaHealth: ReplicaHealth | null;
}

export interface StoreOptions {
  /**
   * The transaction guard: a query through the store's own handles (`db`, `pglite`, `pool`, a new
   * `store.tx`) made from inside an open transaction's own async flow throws at once, naming the
   * call, instead of waiting for that transaction forever (PGlite) or running outside it
   * (PostgreSQL). Other flows are untouched: their queries wait for the transaction as usual.
   * Default: on for the embedded store, where the alternative is a hang of the whole service; on
   * for PostgreSQL under vitest only, where it finds the same mistakes without costing production
   * the async-context tracking.
   */
  guard?: boolean;
}

/**
 * The transactions open in the current async flow, innermost first, for the guard. A transaction is
 * open from the moment its fn starts to the moment it settles; work the transaction started but did
 * not wait for sees it closed afterwards. Only the guard reads this: it never changes what a query
 * does, only refuses one that could not complete.
 */
interface OpenTransaction {
  readonly owner: object;
  open: boolean;
  readonly outer: OpenTransaction | undefined;
}
const openTransactions = new AsyncLocalStorage<OpenTransaction>();

function openIn(owner: object): boolean {
  for (let t = openTransactions.getStore(); t; t = t.outer) if (t.owner === owner && t.open) return true;
  return false;
}

export class OpenTransactionError extends Error {
  constructor(call: string) {
    // Deep enough to get past the driver's and drizzle's frames to the code that made the call.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = Math.max(limit, 40);
    super(
      `${call} inside an open transaction of the same flow: use the transaction (tx) handed to this ` +
        'code (a Tx, or DbScope.read / DbScope.write). On the embedded store this would wait for ' +
        'that transaction forever; on PostgreSQL it would run outside it.',
    );
    Error.stackTraceLimit = limit;
    this.name = 'OpenTransactionError';
  }
}

/** The start of a statement for the guard's message (drizzle sends values as parameters, not in it). */
function statementOf(args: unknown[]): string {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
  if (typeof text !== 'string') return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return ` (${flat.length > 80 ? `${flat.slice(0, 80)}…` : flat})`;
}

/**
 * `client` whose `methods` first refuse to run inside an open transaction of `owner` (see
 * StoreOptions.guard; null: never refused), and run through `around` when given (the embedded
 * store counts its light work so); every other member is the client's own. `name` is how the
 * message calls it.
 */
function guarded<C extends object>(
  client: C,
  owner: object | null,
  name: string,
  methods: string[],
  around?: <T>(run: () => Promise<T>) => Promise<T>,
): C {
  /** Each method as wrapped, with the function it wraps (a client's method may be replaced, by a test say). */
  const wrapped = new Map<PropertyKey, { of: unknown; fn: unknown }>();
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      let entry = wrapped.get(property);
      if (entry?.of !== value) {
        const fn = methods.includes(property as string)
          ? (...args: unknown[]) => {
              // Rejected like the query itself would fail; created here, so its stack is the caller's.
              if (owner && openIn(owner))
                return Promise.reject(
                  new OpenTransactionError(`${name}.${String(property)}${statementOf(args)} called`),
                );
              return around ? around(() => value.apply(target, args)) : value.apply(target, args);
            }
          : // Bound: PGlite's methods read private fields, which a proxy does not have.
            value.bind(target);
        entry = { of: value, fn };
        wrapped.set(property, entry);
      }
      return entry.fn;
    },
  });
}

/** A store over the driver's base handle. */
function makeStore(
  base: Handle,
  fields: Omit<
    Store,
    | 'db'
    | 'replica'
    | 'caughtUpReader'
    | 'tx'
    | 'scope'
    | 'savepoint'
    | 'afterCommit'
    | 'notify'
    | 'listen'
    | 'statement'
  >,
  options: {
    /** Who the guard's open transactions belong to; null when the guard is off. */
    guardOwner: object | null;
    /** The replica's handle (see Store.replica); the base handle when omitted. */
    replica?: Handle;
    /** See Store.caughtUpReader; the base handle when omitted (the embedded store). */
    caughtUpReader?: Store['caughtUpReader'];
    /** Opens a top-level transaction; the base handle's own `transaction` when omitted. */
    begin?: <T>(fn: (tx: Handle) => Promise<T>, options?: TxOptions) => Promise<T>;
    /** Runs one statement through the driver (see Store.statement). */
    run: (statement: Statement, values: unknown[]) => Promise<unknown[]>;
    /** Other processes' notifications (PostgreSQL); none for the single-process embedded store. */
    remote?: RemoteListener;
  },
): Store {
  const { guardOwner } = options;
  const begin =
    options.begin ??
    (<T>(fn: (tx: Handle) => Promise<T>, txOptions?: TxOptions) =>
      base.transaction(fn, txOptions?.isolation ? { isolationLevel: txOptions.isolation } : undefined));
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
  /** fn, marked for the guard as a transaction open in its flow until it settles. */
  const markedOpen = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (!guardOwner) return fn();
    const marker: OpenTransaction = { owner: guardOwner, open: true, outer: openTransactions.getStore() };
    try {
      return await openTransactions.run(marker, fn);
    } finally {
      marker.open = false;
    }
  };
  const transaction = async <T>(fn: (tx: Tx) => Promise<T>, txOptions?: TxOptions): Promise<T> => {
    if (guardOwner && openIn(guardOwner)) throw new OpenTransactionError('store.tx called');
    return withTxRetry(async () => {
      // Per run: a run that rolled back leaves no hook behind.
      const hooks: Array<() => void> = [];
      const result = await begin((tx) => {
        commitHooks.set(tx, hooks);
        return markedOpen(() => fn(tx as Tx));
      }, txOptions);
      for (const run of hooks) run();
      return result;
    });
  };
  const outside: DbScope = { read: base, write: (fn) => transaction(fn) };
  const local = new Map<string, Set<ListenHandler>>();
  return {
    ...fields,
    db: base,
    replica: options.replica ?? base,
    caughtUpReader: options.caughtUpReader ?? (async () => ({ db: base })),
    tx: transaction,
    statement: async <R>(statement: Statement, values: unknown[]) =>
      (await withTxRetry(() => options.run(statement, values))) as R[],
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
      if (options.remote) await ((tx ?? base) as Handle).execute(sql`select pg_notify(${channel}, '')`);
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

export function createPostgresStore(
  databaseUrl: string,
  options: {
    max?: number;
    readUrl?: string | null;
    /** How long a new connection may take before it fails (default 5 s). */
    connectTimeoutMs?: number;
    /** The longest wait before asking a failed replica again (default 30 s; tests shorten it). */
    replicaMaxRetryMs?: number;
  } & StoreOptions = {},
): Store {
  const max = options.max ?? 10;
  const connectTimeoutMs = options.connectTimeoutMs;
  const { pool: raw, hostList } = openPgPool(databaseUrl, { max, setting: 'DATABASE_URL', connectTimeoutMs });
  // The replica's reads, served by the primary while it is down or refuses the credentials.
  const read = options.readUrl
    ? new ReplicaReadPool(
        openPgPool(options.readUrl, { max, setting: 'DATABASE_READ_URL', connectTimeoutMs }).pool,
        raw,
        { maxRetryMs: options.replicaMaxRetryMs },
      )
    : null;
  const guardOwner = (options.guard ?? process.env.VITEST !== undefined) ? {} : null;
  const pool = guardOwner ? guarded(raw, guardOwner, 'store.pool', ['query', 'connect']) : raw;
  /**
   * drizzle's transaction on a pool sends BEGIN before its try/finally, so a connection lost at that
   * moment is never released and the pool shrinks by one for good (pool.end() then hangs). Here the
   * client is checked out and always released by us; the pool drops it if it is broken.
   */
  const begin = async <T>(fn: (tx: Handle) => Promise<T>, txOptions?: TxOptions): Promise<T> => {
    const client = await pool.connect();
    try {
      return await (drizzleNodePg(client) as unknown as Handle).transaction(
        fn,
        txOptions?.isolation ? { isolationLevel: txOptions.isolation } : undefined,
      );
    } catch (error) {
      // A lost or demoted server: the next connection searches the host list again.
      hostList?.reportError(error);
      throw error;
    } finally {
      client.release();
    }
  };
  const handle = (client: pg.Pool, name: string) =>
    drizzleNodePg(
      guardOwner ? guarded(client, guardOwner, name, ['query', 'connect']) : client,
    ) as unknown as Handle;
  const replicaPool = read
    ? guardOwner
      ? guarded(read, guardOwner, 'store.replicaPool', ['query', 'connect'])
      : read
    : undefined;
  const snapshotOn =
    (on: pg.Pool): SnapshotReader =>
    (fn) =>
      readInSnapshot(on, fn);
  const primaryReader = { db: handle(raw, 'store.db'), snapshot: snapshotOn(pool) };
  // An export reads the replica's own pool, not the fallback one: one snapshot, one server.
  const replicaReader = read && {
    db: handle(read.replica, 'store.replica'),
    snapshot: snapshotOn(
      guardOwner ? guarded(read.replica, guardOwner, 'store.replicaPool', ['connect']) : read.replica,
    ),
  };
  return makeStore(
    handle(raw, 'store.db'),
    {
      kind: 'postgres',
      pool,
      replicaPool,
      replicaHealth: read,
      heavyReads: createHeavyReads(poolHeavyReadLimits(max)),
      ping: async () => {
        await raw.query('select 1');
      },
      close: async () => {
        await Promise.all([raw.end(), read?.end()]);
      },
    },
    {
      guardOwner,
      begin,
      // pg would build the same text[] literals, with two regular-expression passes per element.
      run: async ({ name, text }, values) =>
        (
          await pool.query(
            name
              ? { name, text, values: encodeTextArrays(values) }
              : { text, values: encodeTextArrays(values) },
          )
        ).rows,
      replica: read ? handle(read, 'store.replica') : undefined,
      caughtUpReader: async (timeoutMs) =>
        read && replicaReader && (await read.exportPool(timeoutMs)) === read.replica
          ? replicaReader
          : primaryReader,
      remote: createPgListener(hostList ? () => hostList.currentUrl() : databaseUrl),
    },
  );
}

export interface EmbeddedOptions extends StoreOptions {
  /** Directory of the data; omitted means in memory. */
  dataDir?: string;
  /** A dump (dumpDataDir) to start from, used by tests to skip migrations. */
  loadDataDir?: Blob | File;
  /**
   * An open PGlite to run on instead of starting one, and what closing the store does to it in
   * place of closing it: the tests hand one instance from file to file, reset in between, because
   * starting PGlite from a dump is most of what a test file's store cost (test/helpers/embedded-instances.ts).
   */
  open?: { pglite: PGlite; release: () => Promise<void> };
}

/** PGlite's members that run a statement (a transaction waits for the open one, as they do). */
const PGLITE_QUERIES = ['query', 'sql', 'exec', 'transaction'];
/**
 * How long a heavy turn on the embedded store waits for the light statements in flight to be done:
 * under a steady stream of decisions heavy reads still move, a turn at least every quarter second.
 */
const HEAVY_TURN_MAX_YIELD_MS = 250;

export async function createEmbeddedStore(options: EmbeddedOptions = {}): Promise<Store> {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const client = options.open?.pglite ?? (await openPglite(options));
  const guardOwner = (options.guard ?? true) ? {} : null;
  const light = createLightWork(HEAVY_TURN_MAX_YIELD_MS);
  const db = guarded(client, guardOwner, 'store.db', PGLITE_QUERIES, light.wrap);
  const pglite = guarded(client, guardOwner, 'store.pglite', PGLITE_QUERIES, light.wrap);
  return makeStore(
    drizzlePglite(db) as unknown as Handle,
    {
      kind: 'embedded',
      replicaHealth: null,
      dataDir: options.dataDir,
      pglite,
      // One connection: one heavy turn at a time, after the light statements in flight.
      heavyReads: createHeavyReads({ concurrency: 1, perOrganization: 1 }, { beforeTurn: light.yieldTo }),
      ping: async () => {
        await client.query('select 1');
      },
      close: options.open?.release ?? (() => client.close()),
    },
    // One connection: a statement's name would save nothing.
    { guardOwner, run: async ({ text }, values) => (await pglite.query(text, values)).rows },
  );
}

/** PGlite as the store runs it: bigint (int8) columns read as numbers. */
export function openPglite(options: Pick<EmbeddedOptions, 'dataDir' | 'loadDataDir'> = {}): Promise<PGlite> {
  return PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    parsers: { 20: (v: string) => Number(v) },
  });
}

/**
 * PGlite is single-process: a second process opening the same directory would corrupt it.
 * The holder keeps a lock file with its PID and start time (data-dir-lock.mjs); a stale one (a dead
 * holder, or its PID now carried by another process) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = lockPath(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, ownLock(), { flag: 'wx', mode: 0o600 });
      return () => fs.rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const lock = readLock(dataDir);
      if (lockHeld(lock)) throw new DataDirInUseError(dataDir, lock?.pid ?? 0);
      fs.rmSync(file, { force: true });
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
