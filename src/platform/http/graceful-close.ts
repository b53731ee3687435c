import type { FastifyInstance } from 'fastify';

/** How often idle connections are closed while the server closes. */
const SWEEP_MS = 100;

/**
 * A graceful close lets the requests in flight finish, then ends their connections.
 *
 * Node's `server.close()` closes only the connections idle at that moment; one whose response was
 * still being written when close began stays open afterwards on keep-alive until the client hangs
 * up or the keep-alive timeout (72 s) passes, and close waits for it. A load balancer or `fetch`
 * keeps it, so a SIGTERM that arrived during a request (an export download, say) held the
 * process for 72 s, past most orchestrators' grace period. While the app closes, connections
 * that have become idle are closed every SWEEP_MS.
 */
export function closeIdleConnectionsWhileClosing(app: FastifyInstance): void {
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    sweep = setInterval(() => app.server.closeIdleConnections(), SWEEP_MS);
    // A server that never listened never closes: the sweep must not keep the process alive.
    sweep.unref();
  });
  app.addHook('onClose', async () => clearInterval(sweep));
}
