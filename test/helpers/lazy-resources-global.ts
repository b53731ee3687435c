import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopRunProcesses } from './lazy-resources-interrupt.ts';
import { startSharedChromium } from './shared-chromium.ts';
import {
  makePgliteTemplate,
  makePostgresTemplate,
  type PostgresRun,
  postgresRunNames,
} from './store-templates.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL runs: the names of the template database and of each file's clone (per-file-database.ts). */
    postgresTemplate: PostgresRun | null;
    /** Where a test file asks the run's main process for a shared resource (lazy-resources.ts). */
    lazyResourcesUrl: string;
  }
}

/** A resource made: what files are handed, and what the run's end undoes. */
interface Made {
  value: unknown;
  teardown?: () => Promise<void> | void;
}

/** Exit codes of a run stopped by a signal, as a shell reports a process killed by it (128 + its number). */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
/** How long one teardown may take on an interrupt before the next runs (a hung one must not keep the run). */
const INTERRUPT_TEARDOWN_MS = 30_000;

const withTimeout = <T>(work: Promise<T>, ms: number, what: string) =>
  Promise.race([
    work,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no end after ${ms} ms`)), ms).unref(),
    ),
  ]);

/**
 * The run's shared resources, each made the first time a test file asks for it and then handed to
 * every file that asks: the migrated embedded store's dump, the PostgreSQL template database, the
 * shared Chromium and the SDK's built bundles. A file pays only for what it uses: a pure function's
 * test starts none of them, an API test no browser. They are served to the worker processes over
 * loopback HTTP from the main process, which alone outlives every file and can close them at the end.
 */
export default async function setup(project: TestProject) {
  // The run's mark and its temporary directory, set here, before any worker starts, so that every
  // worker and everything a test starts (servers, nginx, Chromium, PostgreSQL clusters, CLI
  // children) inherits both: an interrupt finds the processes by the mark and removes every
  // temporary file of the run with the one directory, whichever file made it.
  const mark = `CONSENT_SERVICE_TEST_RUN=${process.pid}-${randomBytes(4).toString('hex')}`;
  process.env.CONSENT_SERVICE_TEST_RUN = mark.split('=')[1];
  // A short name: Chromium's singleton socket goes below it, and a socket's path has at most 107 bytes.
  const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-run-'));
  // Open to other users as /tmp is (sticky): as root, the PostgreSQL clusters of the failover tests
  // run as the postgres user in directories below it (pg-cluster.ts).
  fs.chmodSync(runTmp, 0o1777);
  process.env.TMPDIR = runTmp;

  const postgres = postgresRunNames(process.env.DATABASE_URL);
  const makers: Record<string, () => Promise<Made>> = {
    'pglite-template': async () => {
      const { file, remove } = await makePgliteTemplate();
      return { value: file, teardown: remove };
    },
    'postgres-template': async () => {
      if (!postgres) throw new Error('no DATABASE_URL: this run has no PostgreSQL template');
      return { value: postgres.template, teardown: await makePostgresTemplate(postgres) };
    },
    chromium: async () => {
      const shared = await startSharedChromium();
      return { value: shared?.wsEndpoint ?? '', teardown: shared?.close };
    },
    'sdk-bundles': async () => {
      const { writeSdkBundleIfChanged } = await import('../../sdk/build.ts');
      await writeSdkBundleIfChanged(true);
      return { value: true };
    },
  };
  /** Each resource once asked for: made once, whoever asks and however often. */
  const made = new Map<string, Promise<Made>>();
  const server = http.createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    const make = makers[name];
    if (!make) return res.writeHead(404).end(`no resource ${req.url}`);
    if (!made.has(name)) made.set(name, make());
    made.get(name)!.then(
      ({ value }) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value)),
      (error: Error) => res.writeHead(500).end(error.stack ?? String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('lazyResourcesUrl', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  project.provide('postgresTemplate', postgres);

  /** The run's end, once, whether the run finished or was interrupted: every resource's teardown, then the directory. */
  let finishing: Promise<void> | null = null;
  const finish = (timeoutMs?: number) =>
    (finishing ??= (async () => {
      server.close();
      server.closeAllConnections();
      // A resource still being made is waited for, so its teardown is known.
      for (const [name, making] of made) {
        const undo = async () => (await making.catch(() => null))?.teardown?.();
        try {
          await (timeoutMs ? withTimeout(undo(), timeoutMs, `the teardown of ${name}`) : undo());
        } catch (error) {
          console.error(`consent-service tests: ${(error as Error).message}`);
        }
      }
      fs.rmSync(runTmp, { recursive: true, force: true });
    })());

  // Vitest's own SIGINT/SIGTERM listeners exit the process a millisecond after the signal, before
  // any teardown: they are taken off here and called once the run's resources are undone, so an
  // interrupted run stops its processes, drops its databases and removes its files first.
  const vitestListeners = {
    SIGINT: process.listeners('SIGINT'),
    SIGTERM: process.listeners('SIGTERM'),
  };
  let interrupts = 0;
  const onSignal = async (signal: keyof typeof SIGNAL_EXIT) => {
    interrupts += 1;
    process.exitCode = SIGNAL_EXIT[signal];
    if (interrupts === 2) {
      console.error(
        `consent-service tests: ${signal} again: still undoing the run (processes, databases, temporary files); once more stops at once, leaving them`,
      );
      return;
    }
    if (interrupts > 2) process.exit(SIGNAL_EXIT[signal]);
    console.error(
      `\nconsent-service tests: ${signal}: stopping the run's processes, then its databases, browser and temporary files`,
    );
    // No new file starts (its worker would be stopped below anyway, and ask the closed broker for nothing).
    project.vitest.cancelCurrentRun('keyboard-input').catch(() => {});
    server.close();
    server.closeAllConnections();
    const left = await stopRunProcesses(mark);
    if (left.length > 0)
      console.error(`consent-service tests: processes ${left.join(', ')} did not stop on SIGKILL`);
    await finish(INTERRUPT_TEARDOWN_MS);
    // Vitest's own temporary directories (transformed modules for the workers), made before this
    // setup set TMPDIR: its close removes them, which an interrupted run never reaches.
    const vitest = project.vitest as unknown as { _tmpDir?: string; projects: Array<{ tmpDir?: string }> };
    for (const dir of [vitest._tmpDir, ...vitest.projects.map((each) => each.tmpDir)])
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    process.exitCode = SIGNAL_EXIT[signal];
    for (const listener of vitestListeners[signal]) listener(signal);
    setTimeout(() => process.exit(SIGNAL_EXIT[signal]), 100).unref();
  };
  const onSigint = () => void onSignal('SIGINT');
  const onSigterm = () => void onSignal('SIGTERM');
  for (const listener of vitestListeners.SIGINT) process.off('SIGINT', listener);
  for (const listener of vitestListeners.SIGTERM) process.off('SIGTERM', listener);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);

  return async () => {
    await finish();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    for (const listener of vitestListeners.SIGINT) process.on('SIGINT', listener);
    for (const listener of vitestListeners.SIGTERM) process.on('SIGTERM', listener);
  };
}
