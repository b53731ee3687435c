/**
 * A third baseline of bench/writepath.ts (`--fastify`): the same-shape INSERT server's work
 * (same-shape-insert.ts, one INSERT per request) behind a bare Fastify route, with no hooks,
 * schema or plugins. Beside the node:http server it shows what Fastify's own front costs a write,
 * apart from what the service does in it.
 */
import Fastify from 'fastify';
import { sameShapeInsert } from './same-shape-insert.ts';

const insert = await sameShapeInsert('bench_evidence_fastify');

const app = Fastify();
app.post('/preferences', async (request, reply) => {
  const id = await insert(request.body as Parameters<typeof insert>[0], request.headers);
  reply.code(201);
  return { id };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
