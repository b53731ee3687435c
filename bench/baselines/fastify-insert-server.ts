/**
 * A third baseline of bench/writepath.ts (`--fastify`): the same-shape INSERT server's work
 * (insert-server.ts: one INSERT into bench_evidence per request) behind a bare Fastify route, with
 * no hooks, schema or plugins. Beside the node:http server it shows what Fastify's own front costs
 * a write, apart from what the service does in it.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { openSql } from './sql.ts';

const sql = await openSql();
await sql('drop table if exists bench_evidence_fastify');
await sql('create table bench_evidence_fastify (like evidence_events including all)');
const organizationId = process.env.ORGANIZATION_ID as string;
const channelId = process.env.CHANNEL_ID as string;

type Body = { subjectId: string; decisions: unknown; configVersion: number; source?: string };
const app = Fastify();
app.post<{ Body: Body }>('/preferences', async (request, reply) => {
  const body = request.body;
  const id = `evt_${randomUUID().replaceAll('-', '')}`;
  await sql(
    `insert into bench_evidence_fastify (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
       config_version, policy_version, source, language, gpc, origin, user_agent, ip_prefix, recorded_at, receipt_hash)
     values ($1, $2, 'live', $3, $4, $5, $6, '2024-05', $7, null, false, $8, $9, '127.0.0.0/24', now(), $10)`,
    [
      organizationId,
      id,
      channelId,
      `psn_${body.subjectId}`,
      JSON.stringify(body.decisions),
      body.configVersion,
      body.source ?? 'banner',
      request.headers.origin ?? null,
      request.headers['user-agent'] ?? null,
      id,
    ],
  );
  reply.code(201);
  return { id };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
