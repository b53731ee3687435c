import { type BuiltApp, buildApp } from '../../src/app.ts';
import { bootstrapOrganization } from '../../src/cli/bootstrap.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Role, Scope } from '../../src/platform/auth/scopes.ts';
import { createManualClock } from '../../src/platform/clock.ts';
import {
  createEmbeddedStore,
  createPostgresStore,
  type Store,
  type Tx,
} from '../../src/platform/db/store.ts';
import type { JobRunner } from '../../src/platform/jobs/job-runner.ts';
import { createWorker } from '../../src/worker.ts';
import { leaseEmbedded } from './embedded-instances.ts';
import { createClient, type HttpClient } from './http.ts';
import { resource } from './lazy-resources.ts';

export interface TestApp {
  app: BuiltApp;
  store: Store;
  config: Config;
  clock: ReturnType<typeof createManualClock>;
  baseUrl: string;
  http: HttpClient;
  /** The worker role on the same services, not polling: tests call `worker.runDue()` to run due jobs. */
  worker: JobRunner;
  /** A fresh organization with an owner and test/live keys holding every owner scope. */
  tenant(): Promise<Tenant>;
  close(): Promise<void>;
}

export interface Tenant {
  organizationId: string;
  ownerId: string;
  testKey: string;
  liveKey: string;
  /** Issues a key for a new member of `role` with exactly `scopes` (through the service, as the CLI does). */
  key(
    scopes: Scope[],
    options?: { environment?: 'test' | 'live'; role?: Role },
  ): Promise<{ id: string; secret: string }>;
}

/** Opens a store for one test file: the shared PostgreSQL, or a fresh embedded one from the migrated dump. */
export async function openTestStore(): Promise<Store> {
  // A connection may wait long for a busy server: CI's two cores run two test files, their browsers
  // and PostgreSQL, and once a file's first connection took over the service's 5 s.
  if (process.env.DATABASE_URL)
    return createPostgresStore(process.env.DATABASE_URL, { max: 5, connectTimeoutMs: 30_000 });
  return createEmbeddedStore({ open: await leaseEmbedded(await resource('pglite-template')) });
}

/**
 * The store's pool with drizzle's `execute`, for a test's own raw SQL (setting rows up, tampering,
 * reading what the API does not show). The service's `Db` has no `execute` (a raw write on the pool
 * does not compile there); a test reaching past it says so with this call.
 */
export function rawSql(store: Store): Pick<Tx, 'execute'> {
  return store.db as unknown as Pick<Tx, 'execute'>;
}

/** Builds the real app on a real database, listening on a random loopback port. */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    logger?: boolean | object;
    store?: Store;
    /** Where the service's clock stands as it starts (default: now). */
    clockStart?: Date;
  } = {},
): Promise<TestApp> {
  const store = options.store ?? (await openTestStore());
  const clock = createManualClock(options.clockStart ?? new Date());
  // Tests move the service's clock (to record decisions in the past) and cannot move the
  // database's: the check that refuses decisions when the two disagree is off unless a test turns it
  // on (test/evidence/clock-skew.test.ts).
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', CLOCK_SKEW_MAX_SECONDS: '0', ...options.env });
  const app = await buildApp({
    config,
    store,
    clock: { now: () => clock.now() },
    logger: options.logger ?? false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  const services = app.services;
  const worker = createWorker({ store, clock, services, log: app.log });

  let memberCount = 0;
  const tenant = async (): Promise<Tenant> => {
    const result = await bootstrapOrganization(store, services, {
      name: 'Test Org',
      ownerEmail: `owner-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
    });
    const organizationId = result.organization.id;
    return {
      organizationId,
      ownerId: result.member.id,
      testKey: result.apiKeys.test,
      liveKey: result.apiKeys.live,
      async key(scopes, { environment = 'test', role = 'owner' } = {}) {
        const member = await store.tx((tx) =>
          services.organizations.addMember(
            tx,
            organizationId,
            `m${++memberCount}-${Date.now()}@example.com`,
            role,
          ),
        );
        const issued = await services.apiKeys.issue(
          store.scope(null),
          {
            organizationId,
            environment,
            actor: { type: 'system', id: null },
            requestId: null,
            ipPrefix: null,
          },
          { organizationId, memberId: member.id, role },
          { name: `test key ${scopes.join(' ')}`, scopes },
          null,
        );
        return { id: issued.key.id, secret: issued.secret };
      },
    };
  };

  return {
    app,
    store,
    config,
    clock,
    baseUrl,
    http: createClient(baseUrl),
    worker,
    tenant,
    async close() {
      // A file's requests are over when it closes its app: connections the test's fetch still holds
      // are cut at once, not swept as they turn idle (the service's graceful close, graceful-close.ts).
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
      if (!options.store) await store.close();
    },
  };
}
