import http from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { describeError } from '../db/pg-errors.ts';
import type { Metrics } from './metrics.ts';
import { tokenMatches } from './observability.ts';

/**
 * `GET /metrics` alone, for a `--role worker` process (it serves no API, but its counters, such as
 * webhook attempts, exist only in its memory). Same token rule and body as the API's /metrics.
 */
export async function startMetricsServer(options: {
  metrics: Metrics;
  token: string | null;
  port: number;
  host: string;
  log: FastifyBaseLogger;
}): Promise<{ close(): Promise<void> }> {
  const { metrics, token, log } = options;
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (token !== null && !tokenMatches(request.headers.authorization, token)) {
      response
        .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' })
        .end('send the metrics token as Authorization: Bearer <METRICS_TOKEN>\n');
      return;
    }
    metrics
      .scrape((error) => log.warn({ err: describeError(error) }, 'metrics: database gauges unavailable'))
      .then((text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text))
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  return {
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
