import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Help, version, exit codes and a taken port: what the CLI answers before it touches a database.
 * Exit codes everywhere: 0 done, 1 failed, 2 usage (or configuration) error.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const BIN = path.join(ROOT, 'bin/consent-service.mjs');
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
/** Each CLI child costs about a second on a loaded two-core machine, those loading tsx several. */
const SLOW = 180_000;
const COMMANDS = [
  'serve',
  'bootstrap',
  'members',
  'keys',
  'orgs',
  'ledger',
  'migrate',
  'init',
  'packages',
  'verify-export',
  'verify-receipt',
];

const tmpDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-usage-'));
  tmpDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI with this file's store (DATABASE_URL on a PostgreSQL run), `env` laid over it. */
function run(args: string[], env: Record<string, string> = {}, bin = BIN): Promise<Result> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
  delete childEnv.BASE_URL; // Vitest's, not the service's
  return new Promise((resolve) => {
    const child = execFile(
      'node',
      [bin, ...args],
      { env: childEnv, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

function expectOneLine(result: Result, code: number, pattern: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^consent-service: /);
  expect(lines[0]).toMatch(pattern);
}

describe('help and version', { timeout: SLOW }, () => {
  it('--help, -h and help list every command on stdout, exit 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const result = await run([flag]);
      expect(result.code, flag).toBe(0);
      expect(result.stderr).toBe('');
      for (const command of COMMANDS) expect(result.stdout).toContain(command);
      expect(result.stdout).toContain('Exit codes: 0 done, 1 failed, 2 usage error.');
    }
  });

  it('each command has its own --help and -h, also after its arguments', async () => {
    for (const command of COMMANDS) {
      for (const args of [
        [command, '--help'],
        [command, '-h'],
        ['help', command],
      ]) {
        const result = await run(args);
        expect(result.code, args.join(' ')).toBe(0);
        expect(result.stdout.startsWith(`usage: consent-service ${command}`), result.stdout).toBe(true);
      }
    }
    const deep = await run(['members', 'set-password', '--org', 'org_x', '-h']);
    expect(deep.code).toBe(0);
    expect(deep.stdout).toContain(
      'consent-service members set-password --org ORG_ID --email E --password-stdin',
    );
  });

  it('--version prints the package version', async () => {
    for (const args of [['--version'], ['version'], ['bootstrap', '--version']]) {
      const result = await run(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`consent-service ${VERSION}\n`);
    }
  });

  it('help and version load neither tsx nor the app: they answer from a copy without node_modules', async () => {
    const copy = tempDir();
    for (const file of [
      'package.json',
      'bin/consent-service.mjs',
      'src/cli/usage.mjs',
      'src/cli/nearest.mjs',
      'src/cli/control-client.mjs',
      'src/cli/control-path.mjs',
      'src/platform/db/data-dir-lock.mjs',
    ]) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, file), path.join(copy, file));
    }
    const bin = path.join(copy, 'bin/consent-service.mjs');
    expect((await run(['--help'], {}, bin)).code).toBe(0);
    expect((await run(['keys', '--help'], {}, bin)).code).toBe(0);
    expect((await run(['--version'], {}, bin)).stdout).toBe(`consent-service ${VERSION}\n`);
    // The copy really cannot run a command: that needs tsx.
    expect((await run(['migrate'], { DATA_DIR: tempDir() }, bin)).code).not.toBe(0);
  });
});

describe('exit codes', { timeout: SLOW }, () => {
  it('2 for a usage error: no command, an unknown command or option, a missing or bad argument', async () => {
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('usage: consent-service <command>');
    const dataDir = tempDir();
    expectOneLine(
      await run(['frobnicate']),
      2,
      /unknown command "frobnicate" \(see consent-service --help\)/,
    );
    // A near miss names the command meant.
    expectOneLine(await run(['boostrap']), 2, /unknown command "boostrap" \(did you mean bootstrap\? /);
    expectOneLine(await run(['--bogus']), 2, /^consent-service: unknown option "--bogus"/);
    expectOneLine(
      await run(['keys', 'create', '--bogus'], { DATA_DIR: dataDir }),
      2,
      /unknown option "--bogus"/,
    );
    expectOneLine(
      await run(['members', 'add', '--org', 'o', '--email', 'a@b.co', '--role', 'superuser'], {
        DATA_DIR: dataDir,
      }),
      2,
      /--role must be one of owner, admin, developer, analyst/,
    );
    expectOneLine(await run(['serve', '--role', 'chef'], { DATA_DIR: dataDir }), 2, /--role must be/);
    expectOneLine(await run(['bootstrap', '--org', 'A'], { DATA_DIR: dataDir }), 2, /--owner is required/);
    expectOneLine(
      await run(['bootstrap', '--org', 'A', '--owner', 'a@b.co', '--frob'], { DATA_DIR: dataDir }),
      2,
      /frob/,
    );
    expectOneLine(await run(['keys', 'list'], { DATA_DIR: dataDir }), 2, /usage: keys create/);
    expectOneLine(await run(['orgs', 'set-limit', '--org', 'o', '--per-minute', 'x']), 2, /--per-minute/);
    expectOneLine(await run(['verify-export'], {}), 2, /usage: verify-export/);
    expectOneLine(await run(['verify-receipt', 'r.json'], {}), 2, /--key is required/);
    expectOneLine(
      await run(['verify-receipt', 'r.json', '--key', 'c2hvcnQ='], {}),
      2,
      /--key must be an Ed25519/,
    );
    // Usage errors touch nothing: the data directory was never created or locked.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it('2 for bad configuration, one line per bad setting', async () => {
    const result = await run(['migrate'], { PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^consent-service: PORT must be an integer/),
      expect.stringMatching(/^consent-service: LOG_LEVEL must be one of/),
    ]);
  });

  it('1 for a failure', async () => {
    const key = Buffer.alloc(32).toString('base64');
    expectOneLine(
      await run(['verify-export', path.join(tempDir(), 'none.jsonl'), '--key', key]),
      1,
      /no such file/,
    );
  });
});

describe('a taken port', { timeout: SLOW }, () => {
  it('is one line on stderr, exit 1, and nothing is created first', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const dataDir = path.join(tempDir(), 'data'); // does not exist yet
      const result = await run(['serve'], { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
      expectOneLine(result, 1, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(fs.existsSync(dataDir)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
