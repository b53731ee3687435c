/**
 * Baseline of scenario c: a bare Fastify route returning the first page of the organization's
 * channels from the same SQL as the service's list (newest first, limit + 1), as a plain JSON
 * array: no authentication, scope check, rate limit, validation, cursor or envelope.
 */
import Fastify from 'fastify';
import { openSql } from './sql.ts';

const sql = await openSql();
const organizationId = process.env.ORGANIZATION_ID as string;
const app = Fastify({ logger: false });
app.get('/v1/channels', async () => {
  const { rows } = await sql(
    `select * from channels where organization_id = $1 and environment = 'live'
     order by created_at desc, id desc limit 21`,
    [organizationId],
  );
  return rows.slice(0, 20);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
