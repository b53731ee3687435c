import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { ExportSelection } from './evidence-reader.ts';
import type { WrittenExport } from './export-writer.ts';

/** A text column as a JSON value: a string (escaped by to_json as JSON.stringify escapes), or null. */
const jsonText = (column: string) => `coalesce(to_json(${column})::text, 'null')`;

/**
 * The export line of an event, built by PostgreSQL: byte for byte `JSON.stringify(exportLine(row))`
 * (export-writer.ts), that is the event as `GET /v1/evidence/:id` shows it, same members in the
 * same order, with the full pseudonym. The line is concatenated text, not row_to_json over json
 * casts: each cast parses its text again, and that made the query 1.7 times slower (10.5 s
 * against 6.1 s for 1 M rows, in psql on one core); concat() and format() over the same pieces
 * were slower than `||` too (2.57 and 2.59 s against 2.43 s). Every member that may be NULL is
 * coalesced (a NULL would void the line). Strings go through to_json (it escapes \", \\, \b \f \n
 * \r \t and other control characters as \u00xx, as JSON.stringify does), about 0.17 s per column
 * per 1 M lines; ids, the environment, the source and the receipt hash (hex) are written between
 * quotes as they are, since the service makes them from [A-Za-z0-9_-] alone. decisions: jsonb's
 * text has a space after each colon and comma; purpose keys (^[a-z][a-z0-9_]*$) and decisions
 * (granted, denied) hold no space or quote, so removing every space is exact (one replace, not
 * two), and the members keep jsonb's order, the order the batch path shows (it parses the same
 * jsonb). Dates as apiDate writes them (whole seconds, UTC, Z). The region members (docs/regions.md)
 * come last and only on events that have them (region_source set), as evidenceWithReceipt writes
 * them; their source and regime are service-made words. So do tcString and tcf (docs/guides/tcf.md):
 * tcf's members in the presenter's fixed order, its id lists as jsonb writes integer arrays with the
 * spaces removed, the members kept since the TC string rules only where the event has them. subjectKind (docs/guides/signed-in-visitors.md) last, only on events recorded
 * since accounts exist, as the presenter writes it; its value is a service-made word.
 */
const LINE = `'{"id":"' || e.id || '","type":"consent.recorded","channelId":"' || e.channel_id
    || '","environment":"' || e.environment
    || '","subject":' || coalesce('{"pseudonym":"' || e.subject_pseudonym || '"}', 'null')
    || ',"decisions":' || replace(coalesce(e.decisions::text, '{}'), ' ', '')
    || ',"configVersion":' || coalesce(e.config_version::text, 'null')
    || ',"policyVersion":' || ${jsonText('e.policy_version')}
    || ',"source":' || coalesce('"' || e.source || '"', 'null')
    || ',"language":' || ${jsonText('e.language')}
    || ',"gpc":' || coalesce(e.gpc::text, 'null')
    || ',"origin":' || ${jsonText('e.origin')}
    || ',"userAgent":' || ${jsonText('e.user_agent')}
    || ',"ipPrefix":' || ${jsonText('e.ip_prefix')}
    || ',"recordedAt":"' || to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
    || '","receipt":{"hash":"' || e.receipt_hash || '"}'
    || CASE WHEN e.region_source IS NULL THEN '' ELSE ',"region":' || ${jsonText('e.region')}
      || ',"regionSource":"' || e.region_source || '","regime":"' || e.regime || '"' END
    || CASE WHEN e.gpp_string IS NULL THEN '' ELSE ',"gppString":' || ${jsonText('e.gpp_string')} END
    || CASE WHEN e.tc_string IS NULL OR e.tcf IS NULL THEN '' ELSE ',"tcString":' || ${jsonText('e.tc_string')}
      || ',"tcf":{"vendorListVersion":' || (e.tcf->>'vendorListVersion')
      || ',"purposeConsents":' || replace((e.tcf->'purposeConsents')::text, ' ', '')
      || ',"vendorConsents":' || replace((e.tcf->'vendorConsents')::text, ' ', '')
      || ',"specialFeatureOptins":' || replace((e.tcf->'specialFeatureOptins')::text, ' ', '')
      || CASE WHEN e.tcf->'policyVersion' IS NULL THEN '' ELSE
        ',"purposeLegitimateInterests":' || replace((e.tcf->'purposeLegitimateInterests')::text, ' ', '')
        || ',"vendorLegitimateInterests":' || replace((e.tcf->'vendorLegitimateInterests')::text, ' ', '')
        || ',"vendorsDisclosed":' || replace((e.tcf->'vendorsDisclosed')::text, ' ', '')
        || ',"policyVersion":' || (e.tcf->>'policyVersion')
        || ',"consentScreen":' || (e.tcf->>'consentScreen')
        || CASE WHEN e.tcf->'publisherCustomConsents' IS NULL THEN '' ELSE
          ',"publisherCustomConsents":' || replace((e.tcf->'publisherCustomConsents')::text, ' ', '') END
        || CASE WHEN e.tcf->'addtlConsent' IS NULL THEN '' ELSE
          ',"addtlConsent":' || (e.tcf->'addtlConsent')::text END END
      || '}' END
    || CASE WHEN e.subject_kind IS NULL THEN '' ELSE ',"subjectKind":"' || e.subject_kind || '"' END
    || CASE WHEN e.gpc_honored_shown IS TRUE THEN ',"gpcHonoredShown":true' ELSE '' END
    || '}'`;

/** The selection as SQL (COPY takes no bind parameters: every value is an escaped literal). */
function whereOf(client: pg.PoolClient, s: ExportSelection): string {
  const parts = [
    `e.organization_id = ${client.escapeLiteral(s.organizationId)}`,
    `e.environment = ${client.escapeLiteral(s.environment)}`,
    `e.recorded_at <= ${client.escapeLiteral(s.to.toISOString())}::timestamptz`,
    'e.purged_at IS NULL',
  ];
  if (s.channelId !== null) parts.push(`e.channel_id = ${client.escapeLiteral(s.channelId)}`);
  if (s.from !== null)
    parts.push(`e.recorded_at >= ${client.escapeLiteral(s.from.toISOString())}::timestamptz`);
  return parts.join(' AND ');
}

/**
 * Undoes the one escape COPY's text format applies to a JSON line: every backslash doubled. A line
 * holds no control character (to_json and jsonb escape them) and no \x01 (the unused delimiter),
 * so a backslash followed by anything but a backslash means the line was not what this file
 * builds: that fails the export instead of writing a wrong byte. A pair may straddle two chunks.
 * Chunks without a backslash (nearly all) pass through as they are.
 */
export function createCopyTextUnescaper() {
  let pairOpen = false; // the previous chunk ended with the first backslash of a pair
  const unescapeChunk = (chunk: Buffer): Buffer => {
    let from = 0;
    if (pairOpen) {
      if (chunk[0] !== 0x5c) throw new Error('COPY text: an escape other than a doubled backslash');
      pairOpen = false;
      from = 1;
    }
    let at = chunk.indexOf(0x5c, from);
    if (at === -1) return from === 0 ? chunk : chunk.subarray(from);
    const out = Buffer.allocUnsafe(chunk.length);
    let length = 0;
    while (at !== -1) {
      length += chunk.copy(out, length, from, at + 1);
      if (at + 1 === chunk.length) {
        pairOpen = true;
        return out.subarray(0, length);
      }
      if (chunk[at + 1] !== 0x5c) throw new Error('COPY text: an escape other than a doubled backslash');
      from = at + 2;
      at = chunk.indexOf(0x5c, from);
    }
    length += chunk.copy(out, length, from);
    return out.subarray(0, length);
  };
  /** After the last chunk: a pair left open means the stream was cut inside a line. */
  const finish = () => {
    if (pairOpen) throw new Error('COPY text: the output ended inside an escape');
  };
  return { unescapeChunk, finish };
}

/**
 * Each channel's first recordedAt in the file, read in the COPY's own snapshot (exported by its
 * transaction) on a second connection while the lines stream: the scan costs about 0.15 s per 1 M
 * events, which ran before the COPY when it shared its connection.
 */
async function firstRecordedAtOf(pool: pg.Pool, snapshot: string, where: string): Promise<Map<string, Date>> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET TRANSACTION SNAPSHOT ${client.escapeLiteral(snapshot)}`);
    const { rows } = await client.query<{ channel_id: string; first: Date }>(
      `SELECT e.channel_id, min(e.recorded_at) AS first FROM evidence_events e WHERE ${where} GROUP BY e.channel_id`,
    );
    await client.query('COMMIT');
    return new Map(rows.map((r) => [r.channel_id, r.first]));
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A connection left inside a failed transaction is not given back to the pool.
    client.release(failure);
  }
}

/** Lines between two `progress` calls (the job's heartbeat), as the batch reader's batch size. */
const PROGRESS_LINES = 5000;

/**
 * A JSONL export at the database's pace (issue 23, PostgreSQL only): PostgreSQL builds every line
 * and streams them with `COPY … TO STDOUT`, in the ledger's order (recordedAt, then id); here the
 * bytes are only hashed, counted and written to `sink`, waiting for it to drain (memory stays
 * flat). Text format, whose only change to a JSON line is doubling its backslashes (undone here,
 * see createCopyTextUnescaper): PostgreSQL's CSV output looks at every byte for its quote and
 * delimiter, which cost 0.14 s more per 1 M lines than the text format's escaping. One snapshot
 * for the whole file: the COPY's transaction's, which the first-recordedAt query imports.
 */
export async function copyJsonlExport(options: {
  pool: pg.Pool;
  selection: ExportSelection;
  sink: Writable;
  progress?: () => Promise<void>;
}): Promise<WrittenExport> {
  const { sink } = options;
  const client = await options.pool.connect();
  let sinkError: Error | null = null;
  sink.on('error', (error: Error) => {
    sinkError ??= error;
  });
  try {
    const where = whereOf(client, options.selection);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = await client.query<{ snapshot: string }>('SELECT pg_export_snapshot() AS snapshot');
    const firsts = firstRecordedAtOf(options.pool, rows[0].snapshot, where);
    // Awaited after the lines; a failure before that must not go unhandled meanwhile.
    firsts.catch(() => {});
    const stream = client.query(
      copyTo(
        `COPY (SELECT ${LINE} FROM evidence_events e WHERE ${where} ORDER BY e.recorded_at, e.id) TO STDOUT WITH (FORMAT text, DELIMITER E'\\x01')`,
      ),
    );
    const hash = createHash('sha256');
    let byteSize = 0;
    let lines = 0;
    let sinceProgress = 0;
    const copyText = createCopyTextUnescaper();
    for await (const copied of stream as AsyncIterable<Buffer>) {
      if (sinkError) throw sinkError;
      const chunk = copyText.unescapeChunk(copied);
      if (chunk.length === 0) continue;
      hash.update(chunk);
      byteSize += chunk.length;
      let count = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
      lines += count;
      sinceProgress += count;
      if (!sink.write(chunk)) await once(sink, 'drain');
      if (sinceProgress >= PROGRESS_LINES) {
        sinceProgress = 0;
        await options.progress?.();
      }
    }
    copyText.finish();
    if (sinkError) throw sinkError;
    const firstRecordedAt = await firsts;
    await client.query('COMMIT');
    return { rowCount: lines, byteSize, sha256: hash.digest('hex'), firstRecordedAt };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
