import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** The CLI as an operator runs it: `node bin/consent-service.mjs …` from the repository. */
const BIN = path.resolve(import.meta.dirname, '../../bin/consent-service.mjs');

/**
 * The child's environment: this process's (DATABASE_URL of the test file's database included) with
 * `env` laid over it; an undefined value removes a variable. Vitest sets BASE_URL=/ (Vite's base)
 * in the test process, which is not a service URL: it is dropped unless given.
 */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  delete merged.BASE_URL;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it wrote so far. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  exited: Promise<number | string>;
  /** SIGKILL if still running; safe to call twice. */
  kill(): void;
}

/** Runs the CLI to completion (bootstrap, keys, a bad configuration …). */
export function runCli(args: string[], env: Record<string, string | undefined>, timeoutMs = 30_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(env), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`consent-service ${args.join(' ')} timed out: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running `consent-service serve …` child. */
export function startService(args: string[], env: Record<string, string | undefined>): ServiceProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(env), stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return {
    child,
    output: () => output,
    exited,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** A loopback port free right now (the OS picks it; the child binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits until `url` answers 200 (a server is up), or fails with the process's output. */
export async function waitAnswering(url: string, service: ServiceProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`the process exited early:\n${service.output()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${service.output()}`);
}

/** Waits until `${baseUrl}/readyz` answers 200, or fails with the process's output. */
export const waitReady = (baseUrl: string, service: ServiceProcess, timeoutMs = 30_000): Promise<void> =>
  waitAnswering(`${baseUrl}/readyz`, service, timeoutMs);

/** Waits until the output contains `text` (a worker has no port to poll). */
export async function waitForOutput(
  service: ServiceProcess,
  text: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!service.output().includes(text)) {
    if (service.child.exitCode !== null) throw new Error(`service exited early:\n${service.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" after ${timeoutMs} ms:\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
