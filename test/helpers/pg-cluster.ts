import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes.ts';

/**
 * PostgreSQL servers of a test's own (a primary and its standbys), made with the server's binaries
 * in temporary directories on spare loopback ports, for tests that must kill a server: failover.
 * PostgreSQL refuses to run as root, so as root the servers run as the `postgres` user.
 */
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const run = promisify(execFile);

/** Why these tests cannot run here, or null when they can. */
export function pgBinariesMissing(): string | null {
  for (const tool of ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres']) {
    if (!fs.existsSync(path.join(BIN, tool))) return `${path.join(BIN, tool)} is missing (set PG_BIN_DIR)`;
  }
  if (process.getuid?.() === 0 && runAsUser() === null)
    return 'running as root and no postgres user to run the servers as';
  return null;
}

function runAsUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

async function tool(name: string, args: string[]) {
  const user = runAsUser();
  return run(path.join(BIN, name), args, { ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } });
}

export interface PgServer {
  name: string;
  port: number;
  dataDir: string;
  /** `127.0.0.1:port`, as a host list entry. */
  host: string;
  start(): Promise<void>;
  /** SIGKILL to the postmaster and every process it started: a crash, no shutdown. */
  kill(): void;
  promote(): Promise<void>;
  stop(): Promise<void>;
  /**
   * A standby stops receiving the primary's WAL (its primary_conninfo emptied, the configuration
   * reloaded) and stays in recovery with what it has: an asynchronous standby that fell behind.
   */
  detach(): Promise<void>;
}

export interface PgCluster {
  root: string;
  primary: PgServer;
  standbys: PgServer[];
  /** postgres:// URL of `database` on the listed servers (no password: trust on loopback). */
  url(database: string, servers: PgServer[], params?: string): string;
  close(): Promise<void>;
}

function server(root: string, name: string, port: number): PgServer {
  const dataDir = path.join(root, name);
  const self: PgServer = {
    name,
    port,
    dataDir,
    host: `127.0.0.1:${port}`,
    async start() {
      await tool('pg_ctl', ['-D', dataDir, '-l', path.join(root, `${name}.log`), '-w', '-t', '60', 'start']);
    },
    kill() {
      const pidFile = path.join(dataDir, 'postmaster.pid');
      if (!fs.existsSync(pidFile)) return;
      const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      let children: number[] = [];
      try {
        children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)])
          .toString()
          .split('\n')
          .map((line) => Number(line.trim()))
          .filter((child) => child > 0);
      } catch {
        // ps exits 1 when it lists nothing: no children (or no postmaster) left.
      }
      for (const target of [pid, ...children]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
    async promote() {
      await tool('pg_ctl', ['-D', dataDir, '-w', '-t', '60', 'promote']);
    },
    async stop() {
      if (!fs.existsSync(path.join(dataDir, 'postmaster.pid'))) return;
      await tool('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => self.kill());
    },
    async detach() {
      // The last setting of a name wins: pg_basebackup -R wrote primary_conninfo before this line.
      fs.appendFileSync(path.join(dataDir, 'postgresql.auto.conf'), "primary_conninfo = ''\n");
      await tool('pg_ctl', ['-D', dataDir, 'reload']);
    },
  };
  return self;
}

export interface PgClusterOptions {
  /**
   * false: asynchronous standbys (no synchronous_standby_names), so a commit is acknowledged before
   * any standby has it, as PostgreSQL does by default. Default true.
   */
  synchronous?: boolean;
  /** Roles that must log in with a password (scram-sha-256 on loopback); every other role is trusted. */
  passwordRoles?: Record<string, string>;
}

/**
 * A primary with `standbys` streaming standbys (s1, s2 …), synchronous with `ANY 1 (s1, …)` unless
 * told otherwise: a commit is acknowledged once one standby has it on disk.
 */
export async function startPgCluster(standbys = 1, options: PgClusterOptions = {}): Promise<PgCluster> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-cluster-'));
  const user = runAsUser();
  if (user) fs.chownSync(root, user.uid, user.gid);
  fs.chmodSync(root, 0o755);
  const primary = server(root, 'primary', await freePort());
  await tool('initdb', ['-D', primary.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const names = Array.from({ length: standbys }, (_, i) => `s${i + 1}`);
  fs.appendFileSync(
    path.join(primary.dataDir, 'postgresql.conf'),
    [
      `port = ${primary.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${root}'`,
      'wal_level = replica',
      'max_wal_senders = 10',
      `synchronous_standby_names = '${options.synchronous === false ? '' : `ANY 1 (${names.join(', ')})`}'`,
      'synchronous_commit = on',
      // A crash here is a killed process, not a lost machine: the OS keeps what was written.
      'fsync = off',
      'full_page_writes = off',
      'max_connections = 60',
      'shared_buffers = 32MB',
      '',
    ].join('\n'),
  );
  const roles = Object.entries(options.passwordRoles ?? {});
  if (roles.length > 0) {
    // pg_hba.conf is read top down: these lines come before initdb's trust lines (and the
    // standbys' base backups copy the file).
    const hba = path.join(primary.dataDir, 'pg_hba.conf');
    const lines = roles.map(([role]) => `host all ${role} 127.0.0.1/32 scram-sha-256`);
    fs.writeFileSync(hba, `${lines.join('\n')}\n${fs.readFileSync(hba, 'utf8')}`);
  }
  await primary.start();
  if (roles.length > 0) {
    const admin = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:${primary.port}/postgres`,
    });
    await admin.connect();
    try {
      // No standby exists yet to acknowledge a synchronous commit.
      await admin.query('set synchronous_commit = local');
      for (const [role, password] of roles)
        await admin.query(`create role "${role}" login password ${admin.escapeLiteral(password)}`);
    } finally {
      await admin.end();
    }
  }
  const replicas: PgServer[] = [];
  for (const name of names) {
    const standby = server(root, name, await freePort());
    await tool('pg_basebackup', [
      '-d',
      `host=127.0.0.1 port=${primary.port} user=postgres application_name=${name}`,
      '-D',
      standby.dataDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    // Promoted, a standby is a primary with no standby of its own: it must not wait for one (with
    // several standbys, the others would follow it and it would list them, as docs/guides says).
    fs.appendFileSync(
      path.join(standby.dataDir, 'postgresql.auto.conf'),
      `port = ${standby.port}\nsynchronous_standby_names = ''\n`,
    );
    await standby.start();
    replicas.push(standby);
  }
  const cluster: PgCluster = {
    root,
    primary,
    standbys: replicas,
    url: (database, servers, params = 'target_session_attrs=read-write') =>
      `postgres://postgres@${servers.map((s) => s.host).join(',')}/${database}${params ? `?${params}` : ''}`,
    async close() {
      for (const s of [primary, ...replicas]) await s.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return cluster;
}
