import type { Store } from '../db/store.ts';
import { AppError } from './errors.ts';
import type { App } from './types.ts';

const READY_TIMEOUT_MS = 2000;

/** Liveness (the process answers) and readiness (the database answers), for load balancers. */
export function healthRoutes(app: App, { store }: { store: Store }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([store.ping(), timeout]);
    } catch {
      throw new AppError('service_unavailable', 'The database is unreachable.', {
        headers: { 'Retry-After': '5' },
      });
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ok', store: store.kind };
  });
}
