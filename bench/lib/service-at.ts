import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Child, freePort } from './processes.ts';

/**
 * The service of the checkout at `root` (this one, or another worktree: a before/after pair), as
 * startService runs it, as an API replica (`role` all: the embedded store admits one process). With
 * `profileDir`, under `node --cpu-prof` (written at exit); `extraNodeArgs` go to node before the entry
 * point; `overrides` replace any of the settings below.
 */
export async function startServiceAt(
  root: string,
  storeEnv: Record<string, string>,
  profileDir?: string,
  role: 'api' | 'all' = 'api',
  extraNodeArgs: string[] = [],
  /** Settings over the bench's own (its limits far above any load, say). */
  overrides: Record<string, string> = {},
) {
  const port = await freePort();
  const nodeArgs = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir, path.basename(root))}`]
    : [];
  nodeArgs.push(...extraNodeArgs);
  // A checkout holding a compiled build (build/main.js, see docs/decisions) runs it with plain node.
  const compiled = fs.existsSync(path.join(root, 'build/main.js'));
  const entry = compiled ? ['--enable-source-maps', 'build/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, [...nodeArgs, ...entry, 'serve', '--role', role], {
    cwd: root,
    env: {
      ...process.env,
      ...storeEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
      LEDGER_SEAL_SECONDS: '86400',
      ...overrides,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${root}: the service exited (${child.exitCode})`);
    try {
      await fetch(`${baseUrl}/healthz`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${root}: the service did not answer`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const service: Child = {
    process: child,
    baseUrl,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
  return service;
}
