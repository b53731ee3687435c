import pg from 'pg';
import { type DatabaseTarget, parseDatabaseUrl, serverMatches } from './database-url.ts';
import { GenericPlanClient } from './generic-plan-client.ts';
import { connectionFailure, isCredentialsRefused, isDatabaseUnavailable } from './pg-errors.ts';

export interface HostListPoolOptions {
  max: number;
  connectionTimeoutMillis: number;
  idleTimeoutMillis: number;
  /** How the URL is named in messages: `DATABASE_URL` or `DATABASE_READ_URL`. */
  setting: string;
}

/** Between two searches that found no server, so a burst of failing requests does not probe in a loop. */
const SEARCH_GAP_MS = 100;
/** A host that does not answer within this is skipped for this search. */
const PROBE_TIMEOUT_MS = 2000;
/**
 * prefer-standby settled on a server that is not a standby (none answered): the list is searched
 * again in the background after this, doubling up to the maximum, so reads return to a standby
 * once one is back, without a search per request.
 */
const PREFERRED_RECHECK_FIRST_MS = 1000;
const PREFERRED_RECHECK_MAX_MS = 30_000;

/**
 * No host of the list is the server the URL asks for (yet): a connection error, so requests answer
 * 503. Its message says what each host answered, a refused password as such (never the password).
 */
export class NoServerFoundError extends Error {
  /** SQLSTATE 08001 (sqlclient_unable_to_establish_sqlconnection): isDatabaseUnavailable knows it. */
  readonly code = '08001';
  constructor(
    message: string,
    /** True when a host refused the credentials (a wrong password, an unknown user). */
    readonly credentialsRefused: boolean,
  ) {
    super(message);
  }
}

/** What one host is, or why it could not say. */
type ProbeAnswer =
  | { server: { inRecovery: boolean; readOnly: boolean } }
  | { failure: string; credentialsRefused: boolean };

/**
 * A pg.Pool over a libpq-style host list (`postgres://h1,h2/db?target_session_attrs=read-write`),
 * which node-postgres itself does not support. It asks every host what it is
 * (`pg_is_in_recovery()`, `transaction_read_only`), pools connections to the first one in list
 * order that matches `target_session_attrs`, and searches again, without a restart, as soon as a
 * query fails because that server went away or turned read-only (SQLSTATE 25006, a demoted
 * primary): after a failover the service finds the promoted standby by itself.
 *
 * The search keeps the current pool when it finds the same host again (a query timed out under
 * load, say), and ends it gracefully when the server changed: connections in use finish or fail,
 * new ones go to the new server.
 */
export class HostListPool extends pg.Pool {
  private current: { index: number; pool: pg.Pool } | null = null;
  private suspect = false;
  private searching: Promise<{ index: number; pool: pg.Pool }> | null = null;
  private lastFailureAt = 0;
  private closed = false;
  /** prefer-standby on a server that is not a standby: when to look for a standby again. */
  private preferred: { recheckAt: number; gapMs: number; checking: boolean } | null = null;

  constructor(
    private readonly target: DatabaseTarget,
    private readonly settings: HostListPoolOptions,
  ) {
    // The base pool is never connected: every client comes from the pool of the server found.
    super({ max: 1 });
    // The counts (metrics) are the current server's pool's; pg declares them as properties.
    const count = (name: 'totalCount' | 'idleCount' | 'waitingCount') => ({
      get: () => this.current?.pool[name] ?? 0,
    });
    Object.defineProperties(this, {
      totalCount: count('totalCount'),
      idleCount: count('idleCount'),
      waitingCount: count('waitingCount'),
    });
  }

  /** The single-host URL of the server in use (searching for it first when needed), for a dedicated client. */
  async currentUrl(): Promise<string> {
    const { index } = await this.server();
    return this.target.hostUrls[index];
  }

  /** Which host of the list is in use, if one is (`host:port`). */
  get currentHost(): string | null {
    if (!this.current) return null;
    const { host, port } = this.target.hosts[this.current.index];
    return `${host}:${port}`;
  }

  /**
   * Tells the pool a query failed: a lost server or a read-only answer makes the next connection
   * search the host list again. Queries through `query` report themselves; a checked-out client's
   * user (a transaction) calls this with its error.
   */
  reportError(error: unknown): void {
    if (this.closed || !this.current) return;
    if (isDatabaseUnavailable(error)) this.suspect = true;
  }

  // pg.Pool's overloads: only the promise forms are used here (by drizzle, the store and the jobs).
  override connect(callback?: any): any {
    if (callback) throw new Error('HostListPool.connect: use the promise form');
    return this.server().then(
      ({ pool }) =>
        pool.connect().catch((error: unknown) => {
          this.reportError(error);
          throw error;
        }),
      (error: unknown) => {
        throw error;
      },
    );
  }

  override query(config: any, values?: any, callback?: any): any {
    if (typeof values === 'function' || callback) throw new Error('HostListPool.query: use the promise form');
    return this.server().then(({ pool }) =>
      pool.query(config, values).catch((error: unknown) => {
        this.reportError(error);
        throw error;
      }),
    );
  }

  override end(callback?: any): any {
    if (callback) throw new Error('HostListPool.end: use the promise form');
    this.closed = true;
    const current = this.current;
    this.current = null;
    return Promise.all([super.end(), current?.pool.end()]).then(() => undefined);
  }

  private server(): Promise<{ index: number; pool: pg.Pool }> {
    if (this.closed) return Promise.reject(new Error('the pool was closed'));
    if (this.current && !this.suspect) {
      if (this.preferred && !this.preferred.checking && Date.now() >= this.preferred.recheckAt)
        this.recheckPreferred(this.preferred);
      return Promise.resolve(this.current);
    }
    this.searching ??= this.search().finally(() => {
      this.searching = null;
    });
    return this.searching;
  }

  private async search(): Promise<{ index: number; pool: pg.Pool }> {
    const wait = this.lastFailureAt + SEARCH_GAP_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const found = await this.findHost();
    if ('answers' in found) {
      this.lastFailureAt = Date.now();
      throw this.notFound(found.answers);
    }
    if (this.closed) throw new Error('the pool was closed');
    this.use(found.index);
    // prefer-standby that found no standby: look again later, in the background.
    this.preferred = found.preferred
      ? null
      : {
          recheckAt: Date.now() + PREFERRED_RECHECK_FIRST_MS,
          gapMs: PREFERRED_RECHECK_FIRST_MS,
          checking: false,
        };
    this.suspect = false;
    return this.current!;
  }

  /** Pools connections to host `index` from now on (the same pool if it is the one in use). */
  private use(index: number) {
    if (this.current && this.current.index === index) return;
    const old = this.current;
    this.current = { index, pool: this.makePool(index) };
    // Connections in use finish (or fail) on the old server; idle ones close now.
    old?.pool.end().catch(() => {});
  }

  /** A background search for a standby while prefer-standby uses another server; requests do not wait. */
  private recheckPreferred(preferred: { recheckAt: number; gapMs: number; checking: boolean }) {
    preferred.checking = true;
    this.findHost()
      .then((found) => {
        if (this.closed || this.preferred !== preferred) return;
        if ('index' in found && found.preferred) {
          this.use(found.index);
          this.preferred = null;
          return;
        }
        preferred.gapMs = Math.min(preferred.gapMs * 2, PREFERRED_RECHECK_MAX_MS);
        preferred.recheckAt = Date.now() + preferred.gapMs;
      })
      .catch(() => {})
      .finally(() => {
        preferred.checking = false;
      });
  }

  /**
   * Every host asked at once; the first in list order that matches wins (prefer-standby: a standby
   * first; `preferred` false when it fell back to another server). Else what each host answered.
   */
  private async findHost(): Promise<{ index: number; preferred: boolean } | { answers: ProbeAnswer[] }> {
    const answers = this.target.hostUrls.map((url) => probe(url));
    const attrs = this.target.sessionAttrs;
    const passes = attrs === 'prefer-standby' ? (['standby', 'any'] as const) : ([attrs] as const);
    for (const [pass, kind] of passes.entries()) {
      for (const [index, pending] of answers.entries()) {
        // In list order: a match ends the search without waiting for a slower host after it.
        const answer = await pending;
        if ('server' in answer && serverMatches(kind, answer.server)) return { index, preferred: pass === 0 };
      }
    }
    return { answers: await Promise.all(answers) };
  }

  /** The error of a search that found no server: what each host answered, a refused password named. */
  private notFound(answers: ProbeAnswer[]): NoServerFoundError {
    const { setting } = this.settings;
    const user = this.target.user ? ` of user "${this.target.user}"` : '';
    const each = answers.map((answer, i) => {
      const { host, port } = this.target.hosts[i];
      if ('failure' in answer) return `${host}:${port} ${answer.failure}`;
      const { inRecovery, readOnly } = answer.server;
      return `${host}:${port} is ${inRecovery ? 'a standby' : readOnly ? 'read-only' : 'a read-write primary'}`;
    });
    const refused = answers.some((answer) => 'failure' in answer && answer.credentialsRefused);
    const lead = refused
      ? `${setting}: the credentials${user} were refused; correct the password (or user) in ${setting}`
      : `no host of ${setting} is a ${this.target.sessionAttrs} server that accepts connections`;
    return new NoServerFoundError(`${lead} (${each.join('; ')})`, refused);
  }

  private makePool(index: number): pg.Pool {
    const pool = new pg.Pool({
      Client: GenericPlanClient,
      connectionString: this.target.hostUrls[index],
      max: this.settings.max,
      connectionTimeoutMillis: this.settings.connectionTimeoutMillis,
      idleTimeoutMillis: this.settings.idleTimeoutMillis,
    });
    // The store's listeners (see createPostgresStore) hear the inner pools' events through this one.
    pool.on('error', (error, client) => this.emit('error', error, client));
    pool.on('connect', (client) => this.emit('connect', client));
    return pool;
  }
}

/** What one host is, or why it cannot say: not reached in time, or it refuses us (and how). */
async function probe(url: string): Promise<ProbeAnswer> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query(
      "select pg_is_in_recovery() as in_recovery, current_setting('transaction_read_only') as read_only",
    );
    return { server: { inRecovery: rows[0].in_recovery === true, readOnly: rows[0].read_only === 'on' } };
  } catch (error) {
    return { failure: connectionFailure(error), credentialsRefused: isCredentialsRefused(error) };
  } finally {
    client.end().catch(() => {});
  }
}

/**
 * The pool of a DATABASE_URL-style setting: a plain pg.Pool for one host, a HostListPool for a host
 * list (or a URL that names the kind of server it needs). Either way its 'error' events are heard:
 * unheard, a lost server's would be uncaught exceptions that kill the process mid-burst, while the
 * queries they concern are rejected anyway (the request answers 503).
 */
export function openPgPool(
  databaseUrl: string,
  options: { max: number; setting: string; connectTimeoutMs?: number },
): { pool: pg.Pool; hostList: HostListPool | null } {
  const target = parseDatabaseUrl(databaseUrl);
  const poolOptions = {
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
  };
  const hostList =
    target.hosts.length > 1 || target.sessionAttrs !== 'any'
      ? new HostListPool(target, { ...poolOptions, setting: options.setting })
      : null;
  const pool =
    hostList ?? new pg.Pool({ Client: GenericPlanClient, connectionString: databaseUrl, ...poolOptions });
  // An idle client that loses its server emits 'error' on the pool.
  pool.on('error', () => {});
  // A checked-out client emits 'error' too, and the pool listens only while it is idle.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return { pool, hostList };
}
