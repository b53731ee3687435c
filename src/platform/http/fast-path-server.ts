import http, { type IncomingMessage, type ServerResponse } from 'node:http';

/** Fastify's own request handler. */
export type FastifyHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A route answered from memory before Fastify sees the request. It returns false, having done
 * nothing, to let Fastify route the request as usual; or true once it has taken the request, which
 * it then either answers or passes on with `fastify(req, res)` (for any answer it does not make itself).
 *
 * Why: on a cached public read Fastify's routing, hook chain and per-request objects cost more
 * than the answer itself (README "Benchmarks", bench a). A fast path must give the same answer Fastify
 * would, so it is built only from the pieces Fastify's route uses too, and tested against it.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse, fastify: FastifyHandler) => boolean;

/**
 * Fastify's `serverFactory`: the HTTP server Fastify would make (same timeouts), whose request
 * listener offers each request to `fastPaths` (read at request time, so routes may add theirs
 * after the app is built) before Fastify's own handler.
 */
export function fastPathServerFactory(
  fastPaths: readonly FastPath[],
  timeouts: { keepAliveTimeout: number; requestTimeout: number },
) {
  return (fastify: FastifyHandler) => {
    const server = http.createServer((req, res) => {
      for (const fastPath of fastPaths) if (fastPath(req, res, fastify)) return;
      fastify(req, res);
    });
    server.keepAliveTimeout = timeouts.keepAliveTimeout;
    server.requestTimeout = timeouts.requestTimeout;
    return server;
  };
}
