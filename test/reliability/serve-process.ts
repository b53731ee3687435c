import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/consent-service.mjs');

/**
 * The store a child process uses: the file's own PostgreSQL database (per-file-database.ts set
 * DATABASE_URL), or else a fresh embedded data directory of its own.
 */
export function storeEnv(): Record<string, string> {
  if (process.env.DATABASE_URL) return { DATABASE_URL: process.env.DATABASE_URL };
  return { DATABASE_URL: '', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'cs-reliability-')) };
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    REDIS_URL: '',
    // Vitest sets BASE_URL to "/" (Vite's base path) in this process's environment.
    BASE_URL: '',
    ...extra,
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `consent-service bootstrap --json` on the store: the organization and its keys. */
export function bootstrap(
  env: Record<string, string>,
): Promise<{ organization: { id: string }; apiKeys: { test: string; live: string } }> {
  return new Promise((resolve, reject) => {
    execFile(
      'node',
      [BIN, 'bootstrap', '--org', 'Reliability', '--owner', `owner-${Date.now()}@example.com`, '--json'],
      { cwd: ROOT, env: childEnv(env) },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

export interface ServeProcess {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<number | null>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<number | null>;
}

/** `consent-service serve` as a child on a free port, once /healthz answers. */
export async function startServe(env: Record<string, string>, port?: number): Promise<ServeProcess> {
  const chosen = port ?? (await freePort());
  const child = spawn('node', [BIN, 'serve'], {
    cwd: ROOT,
    env: childEnv({ ...env, PORT: String(chosen) }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${chosen}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`serve did not become ready: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    baseUrl,
    exited,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
