import { parseArgs } from 'node:util';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { systemClock } from '../platform/clock.ts';
import { startMetricsServer } from '../platform/metrics/metrics-server.ts';
import { createWorker } from '../worker.ts';
import { UsageError } from './commands.ts';
import { openRuntime } from './runtime.ts';

const ROLES = ['api', 'worker', 'all'] as const;
type ServeRole = (typeof ROLES)[number];

/**
 * Runs the API, the worker, or both (design.md §1) until SIGTERM or SIGINT, then stops taking new
 * work, lets requests and running jobs finish (or hands jobs back), and exits.
 */
export async function serveCommand(config: Config, args: string[] = []) {
  let role: ServeRole = 'all';
  try {
    const { values } = parseArgs({ args, options: { role: { type: 'string' } }, strict: true });
    role = (values.role ?? 'all') as ServeRole;
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  if (!ROLES.includes(role)) throw new UsageError('--role must be api, worker or all');
  if (role !== 'all' && !config.databaseUrl) {
    throw new UsageError(
      '--role api|worker needs DATABASE_URL: the embedded store is single-process, use --role all',
    );
  }

  const runtime = await openRuntime(config);
  const app = await buildApp({
    config,
    store: runtime.store,
    clock: systemClock,
    services: runtime.services,
  });
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
    await Promise.all([app.close(), worker?.stop(), metricsServer?.close()]);
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (role !== 'worker') await app.listen({ port: config.port, host: config.host });
  await worker?.start();
  app.log.info(
    { role, store: runtime.store.kind, port: role === 'worker' ? undefined : config.port },
    'consent-service ready',
  );
}
