import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { openSql } from './sql.ts';

type Body = { subjectId: string; decisions: unknown; configVersion: number; source?: string };

/**
 * The one INSERT of the same-shape baselines: a request's row into `table`, a copy of
 * evidence_events' columns and indexes (LIKE … INCLUDING ALL; no ledger trigger, no outbox, no
 * idempotency, no origin check, no pseudonym HMAC). Returns a function that inserts one request's
 * row and resolves with its id.
 */
export async function sameShapeInsert(table: string) {
  const sql = await openSql();
  await sql(`drop table if exists ${table}`);
  await sql(`create table ${table} (like evidence_events including all)`);
  const organizationId = process.env.ORGANIZATION_ID as string;
  const channelId = process.env.CHANNEL_ID as string;

  return async (body: Body, headers: IncomingHttpHeaders): Promise<string> => {
    const id = `evt_${randomUUID().replaceAll('-', '')}`;
    await sql(
      `insert into ${table} (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
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
        headers.origin ?? null,
        headers['user-agent'] ?? null,
        id,
      ],
    );
    return id;
  };
}
