import type { Store } from '../db/store.ts';
import { AppError } from './errors.ts';
import type { App } from './types.ts';

const READY_TIMEOUT_MS = 2000;

/**
 * Liveness (the process answers) and readiness, for load balancers: ready while the primary
 * (DATABASE_URL) answers, whatever the replica does, since its reads then go to the primary.
 * `replica` says how DATABASE_READ_URL is doing: `ok`, `unavailable` or `credentials_refused`
 * (its reads served by DATABASE_URL meanwhile), or `none` when there is no read URL.
 */
export function healthRoutes(app: App, { store }: { store: Store }) {
  const replica = store.replicaHealth;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([store.ping(), timeout]);
    } catch {
      throw new AppError('service_unavailable', 'The database (DATABASE_URL) is unreachable.', {
        headers: { 'Retry-After': '5' },
        extra: { primary: 'unavailable', replica: replica?.state() ?? 'none' },
      });
    } finally {
      clearTimeout(timer);
    }
    return {
      status: 'ok',
      store: store.kind,
      primary: 'ok',
      replica: replica ? await replica.check(READY_TIMEOUT_MS) : 'none',
    };
  });

  // One line when the replica stops serving its reads (saying why) and one when it is back.
  if (replica) {
    const stop = replica.onChange((change) => {
      if (change.state === 'ok') app.log.info('DATABASE_READ_URL answers again: its reads go to it');
      else
        app.log.warn(
          { replica: change.state, retryInMs: change.retryInMs },
          `DATABASE_READ_URL: ${change.detail}; its reads are served by DATABASE_URL until it answers`,
        );
    });
    app.addHook('onClose', async () => stop());
  }
}
