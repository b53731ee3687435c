/**
 * SQL of the channels tables (channels.tables.ts) that another module's statement composes: what a
 * config version's snapshot says, read in SQL.
 */

/**
 * A SELECT of the optional purposes of config versions: per row of `versions` (a relation with
 * organization_id, channel_id and config_version, aliased `b` here), one row (organization_id,
 * channel_id, version, optional: the keys of the snapshot's purposes not marked required). A version
 * without purposes has no row.
 */
export function optionalPurposesOfVersions(versions: string): string {
  return `SELECT v.organization_id, v.channel_id, v.version,
    coalesce(array_agg(p ->> 'key') FILTER (WHERE NOT coalesce((p ->> 'required')::boolean, false)), '{}') AS optional
  FROM ${versions} b
  JOIN channel_config_versions v
    ON v.organization_id = b.organization_id AND v.channel_id = b.channel_id AND v.version = b.config_version
  CROSS JOIN LATERAL jsonb_array_elements(v.snapshot -> 'purposes') p
  GROUP BY v.organization_id, v.channel_id, v.version`;
}
