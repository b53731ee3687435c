import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
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

/**
 * The run's shared resources, each made the first time a test file asks for it and then handed to
 * every file that asks: the migrated embedded store's dump, the PostgreSQL template database, the
 * shared Chromium and the SDK's built bundles. A file pays only for what it uses: a pure function's
 * test starts none of them, an API test no browser. They are served to the worker processes over
 * loopback HTTP from the main process, which alone outlives every file and can close them at the end.
 */
export default async function setup(project: TestProject) {
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
  return async () => {
    server.close();
    // A resource still being made is waited for, so its teardown is known.
    for (const making of made.values()) await (await making.catch(() => null))?.teardown?.();
  };
}
