import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES } from '../../src/platform/auth/scopes.ts';
import { processStart } from '../../src/platform/db/data-dir-lock.mjs';
import { createEmbeddedStore } from '../../src/platform/db/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * The real CLI as a child process. With DATABASE_URL it must use that database (checked over HTTP
 * by an app on the same database); without, the embedded store under DATA_DIR (checked by opening
 * an app on that directory once the CLI has let go of it). Embedded runs cost seconds each (PGlite
 * start-up), so the database-opening invocations are kept few.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/consent-service.mjs');
const databaseUrl = process.env.DATABASE_URL;
const SLOW = 120_000;
const ANALYST_PASSWORD = 'correct horse battery staple';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const tmpDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-cli-'));
  tmpDirs.push(dir);
  return dir;
}

/**
 * The child's environment: ours without the service's own settings, plus what the test gives.
 * (Vitest sets BASE_URL=/ for Vite; the service would reject it.)
 */
function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'BASE_URL', 'DOCS_URL', 'PORT', 'HOST']) delete env[name];
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

/** Runs the CLI; `stdin` is piped in (for --password-stdin), else stdin is closed at once. */
function runCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'node',
      [BIN, ...args],
      { cwd: ROOT, env: cliEnv(env), timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(stdin);
  });
}

const STORE_LINE = 'consent-service: store: ';

/** The line saying which store a command used (it comes first, and at most once). */
function storeLines(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith(STORE_LINE));
}

/** One line of error, besides the store line of a command that opened its store first. */
function expectOneLineError(result: CliResult, pattern: RegExp) {
  expect(result.code, result.stderr).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(storeLines(result).length).toBeLessThanOrEqual(1);
  const lines = result.stderr
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith(STORE_LINE));
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^consent-service: /);
  expect(lines[0]).toMatch(pattern);
}

const dataDir = tempDir();
/** Where the CLI keeps its data in this run. */
const storeEnv: Record<string, string> = databaseUrl
  ? { DATABASE_URL: databaseUrl, DATA_DIR: dataDir }
  : { DATA_DIR: dataDir };

afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** An app on the same database the CLI wrote to; the caller closes it. */
async function appOnCliStore(): Promise<{ app: TestApp; close(): Promise<void> }> {
  if (databaseUrl) {
    const app = await startTestApp();
    return { app, close: () => app.close() };
  }
  const store = await createEmbeddedStore({ dataDir: path.join(dataDir, 'pgdata') });
  const app = await startTestApp({ store });
  return {
    app,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

describe('CLI', () => {
  const email = `owner-${Date.now()}@example.com`;
  let bootstrap: {
    organization: { id: string; name: string };
    member: { id: string; email: string; role: string };
    apiKeys: { test: string; live: string };
  };
  let bootstrapStderr: string;
  let analystId: string;
  let createdSecret: string;

  beforeAll(async () => {
    const result = await runCli(['bootstrap', '--org', 'Acme CLI', '--owner', email, '--json'], storeEnv);
    expect(result.code, result.stderr).toBe(0);
    bootstrap = JSON.parse(result.stdout);
    bootstrapStderr = result.stderr;
  }, SLOW);

  it('says on stderr which store it used: the DATA_DIR path, or the database and its host', () => {
    const expected = databaseUrl
      ? `${STORE_LINE}PostgreSQL, database "${new URL(databaseUrl).pathname.slice(1)}" on ${new URL(databaseUrl).host} (DATABASE_URL)`
      : `${STORE_LINE}embedded, in ${dataDir} (DATA_DIR)`;
    expect(bootstrapStderr.split('\n')).toContain(expected);
  });

  it('bootstrap --json prints exactly the documented shape', () => {
    expect(Object.keys(bootstrap).sort()).toEqual(['apiKeys', 'member', 'organization']);
    expect(Object.keys(bootstrap.organization).sort()).toEqual(['id', 'name']);
    expect(Object.keys(bootstrap.member).sort()).toEqual(['email', 'id', 'role']);
    expect(Object.keys(bootstrap.apiKeys).sort()).toEqual(['live', 'test']);
    expect(bootstrap.organization).toEqual({ id: expect.stringMatching(/^org_/), name: 'Acme CLI' });
    expect(bootstrap.member).toEqual({ id: expect.stringMatching(/^mem_/), email, role: 'owner' });
    expect(bootstrap.apiKeys.test).toMatch(/^svc_test_[0-9A-Za-z]{38}$/);
    expect(bootstrap.apiKeys.live).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
  });

  it(
    'bootstrap of an organization name that exists is refused with its id (exit 1), nothing created',
    async () => {
      const again = await runCli(
        ['bootstrap', '--org', ' Acme CLI ', '--owner', 'second@example.com'],
        storeEnv,
      );
      expectOneLineError(again, new RegExp(`"Acme CLI" already exists: ${bootstrap.organization.id}`));
      expect(again.code).toBe(1);
    },
    SLOW,
  );

  it(
    'members add --json adds a member',
    async () => {
      const result = await runCli(
        [
          'members',
          'add',
          '--org',
          bootstrap.organization.id,
          '--email',
          'Analyst@Example.com',
          '--role',
          'analyst',
          '--json',
        ],
        storeEnv,
      );
      expect(result.code, result.stderr).toBe(0);
      const { member } = JSON.parse(result.stdout);
      expect(member).toMatchObject({
        id: expect.stringMatching(/^mem_/),
        email: 'analyst@example.com',
        role: 'analyst',
      });
      analystId = member.id;
    },
    SLOW,
  );

  it(
    'members set-password --password-stdin sets a console password, and refuses a short one',
    async () => {
      const args = [
        'members',
        'set-password',
        '--org',
        bootstrap.organization.id,
        '--email',
        'analyst@example.com',
      ];
      expectOneLineError(await runCli([...args, '--password-stdin'], storeEnv, 'short\n'), /password/i);
      expectOneLineError(await runCli(args, storeEnv), /--password-stdin is required/);
      const result = await runCli([...args, '--password-stdin', '--json'], storeEnv, `${ANALYST_PASSWORD}\n`);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).member).toEqual({
        id: analystId,
        organizationId: bootstrap.organization.id,
        email: 'analyst@example.com',
        passwordSet: true,
      });
    },
    SLOW,
  );

  it(
    'orgs set-limit --json sets the limit all keys of the organization share',
    async () => {
      const args = ['orgs', 'set-limit', '--org', bootstrap.organization.id, '--per-minute'];
      expectOneLineError(await runCli([...args, '0'], storeEnv), /--per-minute must be an integer/);
      const result = await runCli([...args, '37', '--json'], storeEnv);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        organization: { id: bootstrap.organization.id, rateLimitPerMinute: 37 },
      });
    },
    SLOW,
  );

  it(
    'keys create --json prints {apiKey, secret} with the role’s rules applied',
    async () => {
      const result = await runCli(
        [
          'keys',
          'create',
          '--org',
          bootstrap.organization.id,
          '--member',
          'analyst@example.com',
          '--env',
          'live',
          '--scopes',
          'channels:read,audit:read:limited',
          '--name',
          'Dashboards',
          '--json',
        ],
        storeEnv,
      );
      expect(result.code, result.stderr).toBe(0);
      const printed = JSON.parse(result.stdout);
      expect(Object.keys(printed).sort()).toEqual(['apiKey', 'secret']);
      createdSecret = printed.secret;
      expect(createdSecret).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
      expect(Object.keys(printed.apiKey).sort()).toEqual(
        [
          'createdAt',
          'environment',
          'expiresAt',
          'id',
          'lastUsedAt',
          'memberId',
          'name',
          'prefix',
          'revokedAt',
          'scopes',
          'status',
        ].sort(),
      );
      expect(printed.apiKey).toMatchObject({
        id: expect.stringMatching(/^key_/),
        name: 'Dashboards',
        environment: 'live',
        scopes: ['channels:read', 'audit:read:limited'],
        status: 'active',
        prefix: createdSecret.slice(0, 12),
        memberId: analystId,
      });
    },
    SLOW,
  );

  it(
    'keys create refuses a scope the member’s role may not hold, and scopes outside the catalogue',
    async () => {
      const base = ['keys', 'create', '--org', bootstrap.organization.id, '--env', 'test', '--name', 'N'];
      const roleRule = await runCli(
        [...base, '--member', analystId, '--scopes', 'channels:manage', '--json'],
        storeEnv,
      );
      expectOneLineError(roleRule, /scope_not_allowed.*channels:manage/);
      const unknown = await runCli(
        [...base, '--member', email, '--scopes', 'channels:read,bogus:scope'],
        storeEnv,
      );
      expectOneLineError(unknown, /invalid_scopes.*bogus:scope/);
    },
    SLOW,
  );

  it(
    'unknown organization and unknown member are one-line errors',
    async () => {
      const org = await runCli(
        ['members', 'add', '--org', 'org_doesnotexist', '--email', 'a@b.co', '--role', 'admin'],
        storeEnv,
      );
      expectOneLineError(org, /no organization org_doesnotexist$/);
      // A password for a member of an organization that does not exist: the organization is what is
      // wrong, not the member.
      const password = await runCli(
        ['members', 'set-password', '--org', 'org_doesnotexist', '--email', email, '--password-stdin'],
        storeEnv,
        `${ANALYST_PASSWORD}\n`,
      );
      expectOneLineError(password, /no organization org_doesnotexist$/);
      const member = await runCli(
        [
          'keys',
          'create',
          '--org',
          bootstrap.organization.id,
          '--member',
          'nobody@example.com',
          '--env',
          'test',
          '--scopes',
          'channels:read',
          '--name',
          'N',
        ],
        storeEnv,
      );
      expectOneLineError(
        member,
        new RegExp(`no member nobody@example\\.com in ${bootstrap.organization.id}$`),
      );
      const stored = await runCli(
        [
          'members',
          'set-password',
          '--org',
          bootstrap.organization.id,
          '--email',
          'nobody@example.com',
          '--password-stdin',
        ],
        storeEnv,
        `${ANALYST_PASSWORD}\n`,
      );
      expectOneLineError(stored, /no member nobody@example\.com in org_/);
    },
    SLOW,
  );

  it(
    'missing or bad arguments are one-line errors without touching the database',
    async () => {
      expectOneLineError(await runCli(['bootstrap', '--org', 'Acme'], storeEnv), /--owner is required/);
      expectOneLineError(await runCli(['members', 'add', '--org', 'org_x'], storeEnv), /--email is required/);
      expectOneLineError(
        await runCli(
          [
            'keys',
            'create',
            '--org',
            'o',
            '--member',
            'm',
            '--env',
            'staging',
            '--scopes',
            'a',
            '--name',
            'n',
          ],
          storeEnv,
        ),
        /--env must be test or live/,
      );
      expectOneLineError(
        await runCli(['bootstrap', '--org', 'A', '--owner', 'o@x.io', '--bogus'], storeEnv),
        /bogus/,
      );
      expectOneLineError(await runCli(['members', 'remove'], storeEnv), /usage: members add/);
      // An unknown option names the nearest known one.
      const typo = await runCli(
        ['members', 'set-password', '--org', 'org_x', '--email', 'a@b.co', '--password'],
        storeEnv,
      );
      expectOneLineError(typo, /unknown option "--password" \(did you mean --password-stdin\?/);
      expect(typo.code).toBe(2);
      expectOneLineError(
        await runCli(['keys', 'create', '--org', 'o', '--scope', 'a'], storeEnv),
        /unknown option "--scope" \(did you mean --scopes\?/,
      );
    },
    SLOW,
  );

  it(
    'the keys it printed work against an app on the same database',
    async () => {
      if (databaseUrl) expect(fs.readdirSync(dataDir)).toEqual([]); // it used PostgreSQL, not DATA_DIR
      const { app, close } = await appOnCliStore();
      try {
        for (const key of [bootstrap.apiKeys.test, bootstrap.apiKeys.live]) {
          const res = await app.http.get('/v1/api-keys', { key });
          expect(res.status, res.text).toBe(200);
          // Each bootstrap key carries every scope an owner may hold.
          const own = res.body.data.find((k: { prefix: string }) => k.prefix === key.slice(0, 12));
          expect([...own.scopes].sort()).toEqual([...ROLE_SCOPES.owner].sort());
        }
        const analyst = await app.http.get('/v1/audit-logs', { key: createdSecret });
        expect(analyst.status, analyst.text).toBe(200);
        const denied = await app.http.get('/v1/api-keys', { key: createdSecret });
        expect(denied.status).toBe(403);
        // orgs set-limit's 37 is the organization's limit, the tighter here (each key also has 100).
        expect(analyst.headers.get('x-ratelimit-limit')).toBe('37');
        // The password set from stdin signs the member in.
        const signIn = await app.http.post('/console/api/sign-in', {
          body: { email: 'analyst@example.com', password: ANALYST_PASSWORD },
        });
        expect(signIn.status, signIn.text).toBe(200);
        // Every CLI change is in the audit log, with the system as actor (this is the live log).
        const entries = analyst.body.data as Array<{ action: string; actor: unknown; target: unknown }>;
        const entry = (action: string) => entries.find((e) => e.action === action);
        expect(entry('member.added')).toMatchObject({
          actor: { type: 'system', id: null },
          target: { type: 'member', id: analystId },
        });
        expect(entry('member.password_set')).toMatchObject({ target: { type: 'member', id: analystId } });
        expect(entry('organization.rate_limit_set')).toMatchObject({
          target: { type: 'organization', id: bootstrap.organization.id },
        });
        expect(JSON.stringify(entries)).not.toContain(ANALYST_PASSWORD);
      } finally {
        await close();
      }
    },
    SLOW,
  );
});

describe('a command that only uses a store, where there is none', () => {
  it(
    'exits 1 with "no store at <path>" and creates nothing: not the directory, not a lock',
    async () => {
      const absent = path.join(tempDir(), 'data'); // does not exist
      const env = { DATA_DIR: absent };
      const commands = [
        ['members', 'add', '--org', 'org_x', '--email', 'a@b.co', '--role', 'admin'],
        [
          'keys',
          'create',
          '--org',
          'org_x',
          '--member',
          'a@b.co',
          '--env',
          'test',
          '--scopes',
          'a',
          '--name',
          'n',
        ],
        ['orgs', 'set-limit', '--org', 'org_x', '--per-minute', '5'],
        ['ledger', 'forks'],
        ['init', '--origin', 'http://localhost:5173', '--dir', tempDir()],
      ];
      for (const args of commands) {
        const result = await runCli(args, env);
        expectOneLineError(
          result,
          new RegExp(
            `^consent-service: no store at ${absent.replaceAll('/', '\\/')}: start the service \\(npm start\\) or set DATA_DIR / DATABASE_URL$`,
          ),
        );
        expect(result.code, args.join(' ')).toBe(1);
        expect(fs.existsSync(absent), args.join(' ')).toBe(false);
      }
    },
    SLOW,
  );

  it.skipIf(skipWith(postgresOnly()))(
    '(PostgreSQL runs only: an empty database is made for it) an empty database is no store either: nothing is created in it, and the password in DATABASE_URL is never printed',
    async () => {
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      const empty = `${new URL(databaseUrl!).pathname.slice(1)}_empty`;
      await admin.query(`create database "${empty}"`);
      try {
        const url = new URL(databaseUrl!);
        url.pathname = `/${empty}`;
        url.username = 'postgres';
        url.password = 'not-to-be-printed';
        const result = await runCli(['orgs', 'set-limit', '--org', 'org_x', '--per-minute', '5'], {
          DATABASE_URL: url.toString(),
        });
        expectOneLineError(
          result,
          new RegExp(`no store in PostgreSQL, database "${empty}" on .*: it has no tables yet`),
        );
        expect(result.code).toBe(1);
        expect(storeLines(result)).toEqual([
          `${STORE_LINE}PostgreSQL, database "${empty}" on ${url.host} (DATABASE_URL)`,
        ]);
        expect(result.stderr).not.toContain('not-to-be-printed');
        const tables = new pg.Client({ connectionString: url.toString() });
        await tables.connect();
        const { rows } = await tables.query(
          "select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
        );
        await tables.end();
        expect(rows[0].n).toBe(0);
      } finally {
        await admin.query(`drop database if exists "${empty}" with (force)`);
        await admin.end();
      }
    },
    SLOW,
  );
});

describe('embedded data directory held by a process that takes no commands', () => {
  it(
    'the CLI refuses it with one line and exit 1, leaving the lock alone',
    async () => {
      // A live process (this one) holds the lock but serves no control socket, as an older server
      // would: the CLI waits briefly for a socket, then says who holds the directory.
      // (socket.test.ts: a real server takes the commands.)
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'consent-service.lock'), String(process.pid));
      const result = await runCli(['migrate'], { DATA_DIR: dir });
      expectOneLineError(result, /in use by another process \(pid \d+\)/);
      expect(result.code).toBe(1);
      expect(fs.readFileSync(path.join(dir, 'consent-service.lock'), 'utf8')).toBe(String(process.pid));
      expect(fs.readdirSync(dir)).toEqual(['consent-service.lock']);
    },
    SLOW,
  );

  it(
    'a lock of this version names its holder by PID and start time: the same process is refused',
    async () => {
      const dir = tempDir();
      const lock = JSON.stringify({ pid: process.pid, start: processStart(process.pid) });
      fs.writeFileSync(path.join(dir, 'consent-service.lock'), lock);
      expectOneLineError(
        await runCli(['migrate'], { DATA_DIR: dir }),
        /in use by another process \(pid \d+\)/,
      );
      expect(fs.readFileSync(path.join(dir, 'consent-service.lock'), 'utf8')).toBe(lock);
    },
    SLOW,
  );

  it(
    'a lock whose PID another process now carries (it started later) is stale: the CLI takes the directory',
    async () => {
      // After a crash the PID in the lock can belong to any process: here this test's own, which is
      // alive but did not start when the lock says.
      const dir = tempDir();
      const start = processStart(process.pid);
      expect(start).not.toBeNull();
      fs.writeFileSync(
        path.join(dir, 'consent-service.lock'),
        JSON.stringify({ pid: process.pid, start: String(Number(start) - 1) }),
      );
      const result = await runCli(['migrate'], { DATA_DIR: dir });
      expect(result.code, result.stderr).toBe(0);
      // Released when the command ended.
      expect(fs.existsSync(path.join(dir, 'consent-service.lock'))).toBe(false);
    },
    SLOW,
  );
});

describe.skipIf(skipWith(postgresOnly()))(
  'with DATABASE_URL, while a server runs on the same database',
  () => {
    let server: ChildProcess | undefined;

    afterAll(async () => {
      if (server && server.exitCode === null) {
        const exited = new Promise((resolve) => server!.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
    });

    it(
      'the CLI works, and the server accepts the key it issued',
      async () => {
        const port = await freePort();
        server = spawn('node', [BIN, 'serve'], {
          cwd: ROOT,
          env: cliEnv({ DATABASE_URL: databaseUrl!, PORT: String(port) }),
          stdio: 'ignore',
        });
        await waitForHealth(port, server);
        const result = await runCli(
          ['bootstrap', '--org', 'Live Server Co', '--owner', `o-${Date.now()}@example.com`, '--json'],
          { DATABASE_URL: databaseUrl! },
        );
        expect(result.code, result.stderr).toBe(0);
        const { apiKeys } = JSON.parse(result.stdout);
        const res = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, {
          headers: { authorization: `Bearer ${apiKeys.test}` },
        });
        expect(res.status).toBe(200);
      },
      SLOW,
    );
  },
);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become healthy');
}
