import { execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  type ServiceProcess,
  startService,
  waitForOutput,
  waitReady,
} from '../helpers/processes.ts';
import { embeddedOnly, skipWith } from '../helpers/skip.ts';

/**
 * The CLI while `npm start` runs on the embedded store: the server holds DATA_DIR (PGlite is
 * single-process) and takes the CLI's store commands over a local socket there. Real processes:
 * a server child and CLI children, checked over HTTP against that server.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/consent-service.mjs');
const SLOW = 180_000;
const PASSWORD = 'a long passphrase for the console';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI on DATA_DIR only (no DATABASE_URL), `stdin` piped in. */
function cli(dataDir: string, args: string[], stdin = ''): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  for (const name of ['DATABASE_URL', 'BASE_URL', 'PORT']) delete env[name];
  return new Promise((resolve) => {
    const child = execFile('node', [BIN, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

function expectOneLine(result: Result, code: number, pattern: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  // Besides the line saying which store the command used, when it got that far.
  const lines = result.stderr
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith('consent-service: store: '));
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^consent-service: /);
  expect(lines[0]).toMatch(pattern);
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

// The socket exists for the embedded store only; with PostgreSQL the CLI and any number of servers
// share the database directly (cli.test.ts runs the CLI beside a server on PostgreSQL).
describe.skipIf(skipWith(embeddedOnly()))('CLI while an embedded server runs', { timeout: SLOW }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-socket-'));
  const socketPath = path.join(dataDir, 'run/cli.sock');
  const lockPath = path.join(dataDir, 'consent-service.lock');
  let server: ServiceProcess;
  let baseUrl: string;
  let port: number;
  let org: { organization: { id: string; name: string }; member: { id: string }; apiKeys: { test: string } };

  const serve = async () => {
    const service = startService(['serve'], {
      DATABASE_URL: undefined,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'info',
      REDIS_URL: undefined,
    });
    await waitReady(baseUrl, service, 120_000);
    return service;
  };

  beforeAll(async () => {
    port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    server = await serve();
  }, SLOW);

  afterAll(() => {
    server?.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('on a store with no organization, start-up names the bootstrap command', async () => {
    // The hint is logged after the server starts answering /readyz: wait for it, do not race it.
    await waitForOutput(server, 'No organization yet');
    expect(server.output()).toMatch(/No organization yet.*npx consent-service bootstrap --org/);
  });

  it('listens on an owner-only socket in DATA_DIR', () => {
    expect(fs.statSync(socketPath).isSocket()).toBe(true);
    expect(mode(socketPath)).toBe(0o600);
    expect(mode(path.dirname(socketPath))).toBe(0o700);
  });

  it('bootstrap runs in the server: the same JSON, and its keys work there at once', async () => {
    const result = await cli(dataDir, [
      'bootstrap',
      '--org',
      'Socket Co',
      '--owner',
      'owner@example.com',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    // The only stderr line says which store the server used for it.
    expect(result.stderr).toBe(
      `consent-service: store: embedded, in ${dataDir} (DATA_DIR), held by the running server (pid ${server.child.pid})\n`,
    );
    org = JSON.parse(result.stdout);
    expect(Object.keys(org).sort()).toEqual(['apiKeys', 'member', 'organization']);
    expect(org.organization).toEqual({ id: expect.stringMatching(/^org_/), name: 'Socket Co' });
    const res = await fetch(`${baseUrl}/v1/api-keys`, {
      headers: { authorization: `Bearer ${org.apiKeys.test}` },
    });
    expect(res.status).toBe(200);
    expect(server.output()).toContain('"command":"bootstrap"');
  });

  it('bootstrap of an existing organization name is refused with its id, exit 1', async () => {
    const again = await cli(dataDir, ['bootstrap', '--org', 'Socket Co', '--owner', 'other@example.com']);
    expectOneLine(again, 1, new RegExp(`"Socket Co" already exists: ${org.organization.id}`));
  });

  it('members add and set-password forward the password from stdin, which signs in and is never logged', async () => {
    const add = await cli(dataDir, [
      'members',
      'add',
      '--org',
      org.organization.id,
      '--email',
      'dev@example.com',
      '--role',
      'developer',
      '--json',
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout).member).toMatchObject({ email: 'dev@example.com', role: 'developer' });
    const args = ['members', 'set-password', '--org', org.organization.id, '--email', 'dev@example.com'];
    expectOneLine(await cli(dataDir, [...args, '--password-stdin'], 'short\n'), 2, /password/i);
    const set = await cli(dataDir, [...args, '--password-stdin'], `${PASSWORD}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe(`Password set for dev@example.com in ${org.organization.id}\n`);
    const signIn = await fetch(`${baseUrl}/console/api/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseUrl },
      body: JSON.stringify({ email: 'dev@example.com', password: PASSWORD }),
    });
    expect(signIn.status, await signIn.clone().text()).toBe(200);
    expect(server.output()).not.toContain(PASSWORD);
    expect(server.output()).not.toContain('short');
  });

  it('keys create and orgs set-limit work, with the same errors and exit codes as the direct CLI', async () => {
    const key = await cli(dataDir, [
      'keys',
      'create',
      '--org',
      org.organization.id,
      '--member',
      'dev@example.com',
      '--env',
      'test',
      '--scopes',
      'channels:read',
      '--name',
      'Over the socket',
      '--json',
    ]);
    expect(key.code, key.stderr).toBe(0);
    const { secret } = JSON.parse(key.stdout);
    const limit = await cli(dataDir, [
      'orgs',
      'set-limit',
      '--org',
      org.organization.id,
      '--per-minute',
      '41',
    ]);
    expect(limit.code, limit.stderr).toBe(0);
    const res = await fetch(`${baseUrl}/v1/channels`, { headers: { authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('41');
    // A usage error found by the server is still exit 2; a failure exit 1; each one line.
    expectOneLine(
      await cli(dataDir, ['keys', 'create', '--org', org.organization.id, '--env', 'test']),
      2,
      /--member is required/,
    );
    expectOneLine(
      await cli(dataDir, ['orgs', 'set-limit', '--org', 'org_nope', '--per-minute', '5']),
      1,
      /no organization org_nope/,
    );
    expect((await cli(dataDir, ['migrate'])).stdout).toBe('Migrations applied.\n');
  });

  it('demo --password-stdin sets the demo owner’s console password from stdin: it signs in, and is never logged', async () => {
    const demoPassword = 'the demo owner passphrase';
    const demo = await cli(dataDir, ['demo', '--password-stdin', '--json'], `${demoPassword}\n`);
    expect(demo.code, demo.stderr).toBe(0);
    expect(JSON.parse(demo.stdout)).toMatchObject({ siteKey: expect.stringMatching(/^site_test_/) });
    const signIn = await fetch(`${baseUrl}/console/api/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseUrl },
      body: JSON.stringify({ email: 'demo@example.com', password: demoPassword }),
    });
    expect(signIn.status, await signIn.clone().text()).toBe(200);
    expect(server.output()).not.toContain(demoPassword);
    // A password on the command line is refused, naming the option that reads it from stdin.
    expectOneLine(
      await cli(dataDir, ['demo', '--password', demoPassword]),
      2,
      /did you mean --password-stdin\?/,
    );
  });

  it('closes a connection that sends far more than its command, and the server does not grow', async () => {
    const pid = server.child.pid as number;
    const rss = () =>
      Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
    const before = rss();
    const socket = net.connect(socketPath);
    socket.on('error', () => {});
    await once(socket, 'connect');
    let closedBeforeEnd = false;
    let ended = false;
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        closedBeforeEnd = !ended;
        resolve();
      }),
    );
    // A command, then 12 MiB of short lines nobody asked for.
    socket.write(`${JSON.stringify({ argv: ['migrate'] })}\n`);
    const junk = Buffer.from('{}\n'.repeat(1 << 20));
    for (let i = 0; i < 4 && !socket.destroyed; i++)
      if (!socket.write(junk)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
    ended = true;
    socket.end();
    await closed;
    expect(closedBeforeEnd).toBe(true);
    expect(rss() - before).toBeLessThan(64 * 1024 * 1024);
    // And it takes the next command as ever.
    const next = await cli(dataDir, ['migrate']);
    expect(next.code, next.stderr).toBe(0);
  });

  it('a stale socket and lock (server killed) are replaced by the next server; SIGTERM removes them', async () => {
    server.kill();
    await server.exited;
    expect(fs.existsSync(socketPath)).toBe(true); // left behind by SIGKILL
    // The dead server's PID given to another live process, as the system does in time (here this
    // test's own process): the lock still says when its holder started, so it is stale all the same.
    const left = fs.readFileSync(lockPath, 'utf8');
    const reused = left.replace(String(server.child.pid), String(process.pid));
    expect(reused).not.toBe(left);
    fs.writeFileSync(lockPath, reused);
    server = await serve();
    const result = await cli(dataDir, ['migrate']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.output()).toContain('"command":"migrate"');
    // Not the empty-store hint: this store has an organization.
    expect(server.output()).not.toContain('No organization yet');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(fs.existsSync(socketPath)).toBe(false);
    expect(fs.existsSync(lockPath)).toBe(false);
  });
});
