/**
 * The SQL of a JSONL evidence export built by PostgreSQL (the exports module streams it with COPY,
 * see exports/evidence-copy.ts): the evidence module owns evidence_events, so the statement that
 * reads it is written here.
 */

/** Which events an export holds (the exports module's ExportSelection). */
export interface EvidenceExportSelection {
  organizationId: string;
  environment: string;
  channelId: string | null;
  from: Date | null;
  /** Inclusive. */
  to: Date;
}

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
 * since accounts exist, as the presenter writes it; its value is a service-made word. handoff and
 * importedFrom (docs/guides/keep-the-choice.md) after it, then app (docs/guides/apps.md), each only
 * on events that have it, their members in the presenter's order, every string through to_json.
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
    || CASE WHEN e.handoff IS NULL THEN '' WHEN e.handoff->>'fromApp' IS NOT NULL
      THEN ',"handoff":{"fromApp":' || ${jsonText("e.handoff->>'fromApp'")}
      || ',"eventId":' || ${jsonText("e.handoff->>'eventId'")} || '}'
      ELSE ',"handoff":{"fromOrigin":' || ${jsonText("e.handoff->>'fromOrigin'")}
      || ',"eventId":' || ${jsonText("e.handoff->>'eventId'")} || '}' END
    || CASE WHEN e.imported_from IS NULL THEN '' ELSE ',"importedFrom":{"cmp":' || ${jsonText("e.imported_from->>'cmp'")}
      || ',"recordedAt":' || ${jsonText("e.imported_from->>'recordedAt'")}
      || ',"value":' || ${jsonText("e.imported_from->>'value'")} || '}' END
    || CASE WHEN e.app IS NULL THEN '' ELSE ',"app":{"appId":' || ${jsonText("e.app->>'appId'")}
      || ',"platform":' || ${jsonText("e.app->>'platform'")}
      || ',"sdkVersion":' || coalesce(${jsonText("e.app->>'sdkVersion'")}, 'null') || '}' END
    || '}'`;

/**
 * The selection as SQL (COPY takes no bind parameters: every value is an escaped literal, made by
 * `literal`).
 */
export function evidenceExportWhere(literal: (value: string) => string, s: EvidenceExportSelection): string {
  const parts = [
    `e.organization_id = ${literal(s.organizationId)}`,
    `e.environment = ${literal(s.environment)}`,
    `e.recorded_at <= ${literal(s.to.toISOString())}::timestamptz`,
    'e.purged_at IS NULL',
  ];
  if (s.channelId !== null) parts.push(`e.channel_id = ${literal(s.channelId)}`);
  if (s.from !== null) parts.push(`e.recorded_at >= ${literal(s.from.toISOString())}::timestamptz`);
  return parts.join(' AND ');
}

/** Where a batch of the export starts: after this event (its recordedAt as PostgreSQL writes it, exact). */
export interface EvidenceExportKey {
  recordedAt: string;
  id: string;
}

/**
 * The COPY of up to `limit` lines of the export after `after` (from the start when null), in the
 * ledger's order (recordedAt, then id), in COPY's text format. The lower bound on recorded_at beside
 * the keyset lets PostgreSQL leave out, and leave unlocked, the partitions the export has read.
 */
export function evidenceExportCopy(
  literal: (value: string) => string,
  where: string,
  after: EvidenceExportKey | null,
  limit: number,
): string {
  const keyset = after
    ? ` AND e.recorded_at >= ${literal(after.recordedAt)}::timestamptz AND (e.recorded_at, e.id) > (${literal(after.recordedAt)}::timestamptz, ${literal(after.id)})`
    : '';
  return `COPY (SELECT ${LINE} FROM evidence_events e WHERE ${where}${keyset} ORDER BY e.recorded_at, e.id LIMIT ${Math.trunc(limit)}) TO STDOUT WITH (FORMAT text, DELIMITER E'\\x01')`;
}

/**
 * The exact recordedAt of the selection's event `id` (its line shows whole seconds), as text that
 * reads back as the same timestamptz in the same session: where the next batch starts.
 */
export function evidenceExportKeyOf(
  literal: (value: string) => string,
  s: EvidenceExportSelection,
  id: string,
): string {
  return `SELECT e.recorded_at::text AS recorded_at FROM evidence_events e WHERE e.organization_id = ${literal(s.organizationId)}
    AND e.environment = ${literal(s.environment)} AND e.id = ${literal(id)} ORDER BY e.recorded_at DESC LIMIT 1`;
}

/**
 * The channels with unpurged events in the selection's organization and environment: a skip scan of
 * evidence_events_purge_idx (organization, channel, recordedAt, unpurged only), one probe per channel.
 */
export function evidenceExportChannels(
  literal: (value: string) => string,
  s: EvidenceExportSelection,
): string {
  const scope = `e.organization_id = ${literal(s.organizationId)} AND e.environment = ${literal(s.environment)}
    AND e.purged_at IS NULL${s.channelId === null ? '' : ` AND e.channel_id = ${literal(s.channelId)}`}`;
  return `WITH RECURSIVE used AS (
      (SELECT e.channel_id FROM evidence_events e WHERE ${scope} ORDER BY e.channel_id LIMIT 1)
      UNION ALL
      SELECT n.channel_id FROM used u CROSS JOIN LATERAL (
        SELECT e.channel_id FROM evidence_events e WHERE ${scope} AND e.channel_id > u.channel_id
        ORDER BY e.channel_id LIMIT 1) n
    )
    SELECT channel_id FROM used`;
}

/**
 * Each of `channelIds`' first recordedAt among the selected events, one seek each: a subquery per
 * channel with its id written in, so PostgreSQL plans each for that channel (a plan for any channel
 * may walk the list index through another channel's events to find a rare one's first).
 */
export function evidenceExportFirsts(
  literal: (value: string) => string,
  where: string,
  channelIds: string[],
): string {
  return channelIds
    .map(
      (id) => `SELECT ${literal(id)} AS channel_id, (SELECT min(e.recorded_at) FROM evidence_events e
        WHERE ${where} AND e.channel_id = ${literal(id)}) AS first`,
    )
    .join(' UNION ALL ');
}
