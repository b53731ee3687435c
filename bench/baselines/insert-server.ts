/**
 * Baseline of scenario b: a bare node:http server that parses the same JSON body and does one
 * INSERT of the equivalent row into `bench_evidence`, a copy of evidence_events' columns and
 * indexes (LIKE … INCLUDING ALL; no ledger trigger, no outbox, no idempotency, no origin check,
 * no pseudonym HMAC), then answers 201 with the id. Through a pg pool, or PGlite on --embedded.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { openSql } from './sql.ts';

const sql = await openSql();
await sql('drop table if exists bench_evidence');
await sql('create table bench_evidence (like evidence_events including all)');
const organizationId = process.env.ORGANIZATION_ID as string;
const channelId = process.env.CHANNEL_ID as string;

http
  .createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const id = `evt_${randomUUID().replaceAll('-', '')}`;
        await sql(
          `insert into bench_evidence (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
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
        const out = JSON.stringify({ id });
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(out);
      } catch (error) {
        response.writeHead(500);
        response.end(String(error));
      }
    });
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
