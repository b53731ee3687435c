import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

/** A free loopback port (the OS picks it; the child binds it right after). */
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

export interface Child {
  process: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

async function waitUntilAnswering(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited (${child.exitCode})`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Runs a TypeScript file of this repo as a child HTTP server on a free port, and waits until it answers. */
export async function startChild(
  script: string,
  args: string[],
  env: Record<string, string>,
  readyPath = '/',
): Promise<Child> {
  const port = await freePort();
  const child = spawn(TSX, [path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(`${baseUrl}${readyPath}`, child, 120_000);
  return {
    process: child,
    baseUrl,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The service as an operator runs it (`consent-service serve`), with request logs off and limits
 * far above what the load reaches, so rate limiting never answers 429 during a run.
 */
export function startService(storeEnv: Record<string, string>, role: 'api' | 'all'): Promise<Child> {
  return startChild(
    'src/main.ts',
    ['serve', '--role', role],
    {
      ...storeEnv,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
      // No seal during the HTTP scenarios: the ledger is measured on its own (scenario f).
      LEDGER_SEAL_SECONDS: '86400',
    },
    '/healthz',
  );
}

/** Runs a child to completion and returns its last stdout line parsed as JSON. */
export function runJsonChild(script: string, args: string[], env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [path.join(ROOT, script), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with ${code}`));
      const lines = out.trim().split('\n');
      try {
        resolve(JSON.parse(lines[lines.length - 1]));
      } catch (error) {
        reject(error);
      }
    });
  });
}
