import http, { type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A route answered from memory before Fastify sees the request. It returns false, having done
 * nothing, to let Fastify route the request as usual; or true once it has taken the request, which
 * it then either answers or passes on with `toFastify` (for any answer it does not make itself).
 *
 * Why: on a cached public read Fastify's routing, hook chain and per-request objects cost more
 * than the answer itself (design.md §6, bench a). A fast path must give the same answer Fastify
 * would, so it is built only from the pieces Fastify's route uses too, and tested against it.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse, toFastify: () => void) => boolean;

/**
 * Fastify's `serverFactory`: the HTTP server Fastify would make (same timeouts), whose request
 * listener offers each request to `fastPaths` (read at request time, so routes may add theirs
 * after the app is built) before Fastify's own handler.
 */
export function fastPathServerFactory(
  fastPaths: readonly FastPath[],
  timeouts: { keepAliveTimeout: number; requestTimeout: number },
) {
  return (fastify: (req: IncomingMessage, res: ServerResponse) => void) => {
    const server = http.createServer((req, res) => {
      const toFastify = () => fastify(req, res);
      for (const fastPath of fastPaths) if (fastPath(req, res, toFastify)) return;
      fastify(req, res);
    });
    server.keepAliveTimeout = timeouts.keepAliveTimeout;
    server.requestTimeout = timeouts.requestTimeout;
    return server;
  };
}
