import net from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { systemClock } from '../platform/clock.ts';
import { startMetricsServer } from '../platform/metrics/metrics-server.ts';
import { createWorker } from '../worker.ts';
import { type ControlServer, type Ready, startControlServer } from './control-server.ts';
import { CliFailure, UsageError } from './errors.ts';
import { optionError } from './options.ts';
import { openRuntime } from './runtime.ts';
import { storeLine } from './store-line.ts';

const ROLES = ['api', 'worker', 'all'] as const;
type ServeRole = (typeof ROLES)[number];

/**
 * Runs the API, the worker, or both (docs/guides/operate.md, "Run several processes") until SIGTERM or
 * SIGINT, then stops taking new work, lets requests and running jobs finish (or hands jobs back), and exits.
 */
export async function serveCommand(config: Config, args: string[] = []) {
  let role: ServeRole = 'all';
  try {
    const { values } = parseArgs({ args, options: { role: { type: 'string' } }, strict: true });
    role = (values.role ?? 'all') as ServeRole;
  } catch (error) {
    throw optionError(error, ['role']);
  }
  if (!ROLES.includes(role)) throw new UsageError('--role must be api, worker or all');
  if (role !== 'all' && !config.databaseUrl) {
    throw new UsageError(
      '--role api|worker needs DATABASE_URL: the embedded store is single-process, use --role all',
    );
  }

  // A taken port is found before anything is created (a data directory, a database, a lock).
  if (role !== 'worker') await assertPortFree(config.port, config.host, 'PORT');
  if (role === 'worker' && config.metricsPort !== null)
    await assertPortFree(config.metricsPort, config.host, 'METRICS_PORT');

  // Embedded: once the data directory is this process's, CLI commands come over a local socket
  // (they wait there until the store is open and migrated).
  let control: ControlServer | null = null;
  let controlTooLong = false;
  let markReady: (ready: Ready) => void = () => {};
  const ready = new Promise<Ready>((resolve) => {
    markReady = resolve;
  });
  // Plain lines on stderr, like the CLI's other messages: the JSON log starts once the app exists.
  const progress = (message: string) => process.stderr.write(`consent-service: ${message}\n`);
  // Set by bin/consent-service.mjs: the compiled dist/server, or the sources through tsx.
  const build = (globalThis as { consentServiceBuild?: string }).consentServiceBuild;
  if (build === 'compiled') progress('starting the compiled service (dist/server)');
  if (build === 'sources') {
    progress(
      'dist/server is missing or older than src/: running the TypeScript sources through tsx (slower; `node scripts/build.mjs` compiles them)',
    );
  }
  process.stderr.write(storeLine(config));
  const runtime = await openRuntime(config, {
    progress,
    onLocked: async () => {
      control = await startControlServer(config, ready);
      controlTooLong = control === null;
    },
  }).catch(async (error) => {
    await (control as ControlServer | null)?.close();
    throw error;
  });
  progress('loading the HTTP API…');
  const app = await buildApp({
    config,
    store: runtime.store,
    clock: systemClock,
    services: runtime.services,
  });
  markReady({ runtime, log: app.log });
  if (controlTooLong) {
    app.log.warn(
      { dataDir: config.dataDir },
      'DATA_DIR is too long a path for the CLI socket: stop the server to run CLI commands',
    );
  }
  const worker =
    role === 'api'
      ? null
      : createWorker({ store: runtime.store, clock: systemClock, services: runtime.services, log: app.log });

  // A worker serves no API, so its own counters (webhook attempts) get a port of their own.
  const metricsServer =
    role === 'worker' && config.metricsPort !== null
      ? await startMetricsServer({
          metrics: runtime.services.metrics,
          token: config.metricsToken,
          port: config.metricsPort,
          host: config.host,
          log: app.log,
        })
      : null;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await (control as ControlServer | null)?.close();
    await Promise.all([app.close(), worker?.stop(), metricsServer?.close()]);
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (role !== 'worker') {
    await app.listen({ port: config.port, host: config.host }).catch((error) => {
      throw portError(error, config.port, config.host, 'PORT');
    });
  }
  if (role !== 'worker') {
    const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    const port = (app.server.address() as net.AddressInfo | null)?.port ?? config.port;
    progress(`listening on http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`);
  }
  await worker?.start();
  app.log.info(
    { role, store: runtime.store.kind, port: role === 'worker' ? undefined : config.port },
    'consent-service ready',
  );
  if (role !== 'worker' && !(await runtime.services.organizations.hasOrganizations())) {
    app.log.info(
      'No organization yet. Create one and its first API keys (in another terminal; the server can keep running): npx consent-service bootstrap --org "Acme" --owner you@example.com',
    );
  }
}

/** Binds and releases the port, so a taken one stops the start before anything is created. */
async function assertPortFree(port: number, host: string, setting: string): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  }).catch((error) => {
    throw portError(error, port, host, setting);
  });
}

/** A listen error as one line for the operator; anything unexpected is returned as it is. */
function portError(error: NodeJS.ErrnoException, port: number, host: string, setting: string): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new CliFailure(
        `port ${port} on ${host} is already in use: stop what holds it, or set ${setting}`,
      );
    case 'EACCES':
      return new CliFailure(`port ${port} on ${host} is not allowed to this user: set ${setting} above 1023`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new CliFailure(`HOST ${host} is not an address of this machine`);
    default:
      return error;
  }
}
