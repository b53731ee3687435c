import {
  DEFAULT_CONSENT_MAX_AGE_DAYS,
  DEFAULT_REGION_RULES,
  type RegionRule,
} from '../regions/regions.schemas.ts';
import type { SnapshotTcf } from '../tcf/settings/tcf-settings.service.ts';
import type { ChannelRow, PurposeRow, TechnologyRow } from './channels.repo.ts';
import type { VisitorConfig } from './channels.schemas.ts';
import { shownImports } from './cmp-imports.ts';

/**
 * What a visitor is shown for one configVersion: the snapshot stored per version and, as is, the
 * public site config. Only what the banner needs: no ids, no timestamps, nothing internal. Its
 * shape is the schema's (channels.schemas.ts), so the type cannot drift from what is served.
 */
export type { VisitorConfig };

type ConsentModeSignal = VisitorConfig['purposes'][number]['consentModeSignals'][number];

const byCreation = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Builds the visitor config of a channel from its rows. Pure: archived purposes are left out, and
 * purposes and technologies keep their creation order (the order the banner lists them in), so the
 * same rows always give the same config.
 */
export function buildVisitorConfig(
  channel: ChannelRow,
  purposes: PurposeRow[],
  technologies: TechnologyRow[],
  tcf: VisitorConfig['tcf'] = null,
): VisitorConfig {
  const active = purposes.filter((p) => p.status === 'active').sort(byCreation);
  const activeKeys = new Set(active.map((p) => p.key));
  const languages = new Set([channel.defaultLanguage]);
  for (const purpose of active) for (const lang of Object.keys(purpose.translations)) languages.add(lang);
  return {
    channelId: channel.id,
    siteKey: channel.siteKey,
    configVersion: channel.configVersion,
    defaultLanguage: channel.defaultLanguage,
    languages: [...languages].sort(),
    privacyPolicy: { url: channel.privacyPolicyUrl, version: channel.privacyPolicyVersion },
    regionRules: channel.regionRules,
    consentMaxAgeDays: channel.consentMaxAgeDays,
    rejectCooldownDays: channel.rejectCooldownDays,
    gppCmpId: channel.gppCmpId,
    gppSections: channel.gppSections,
    tcf,
    integrations: { ...channel.integrations },
    firstPartyPath: channel.firstPartyPath,
    cookieDomain: channel.cookieDomain,
    crossDomain: channel.crossDomain,
    imports: shownImports(channel.imports, new Set(active.filter((p) => !p.required).map((p) => p.key))),
    purposes: active.map((p) => ({
      key: p.key,
      name: p.name,
      description: p.description,
      legalBasis: p.legalBasis,
      required: p.required,
      translations: sortedKeys(p.translations),
      // Written only through the purpose schemas, which accept only these signals.
      consentModeSignals: [...p.consentModeSignals] as ConsentModeSignal[],
      gpcOptOut: p.gpcOptOut,
    })),
    technologies: [...technologies].sort(byCreation).map((t) => ({
      name: t.name,
      vendor: t.vendor,
      // Purposes are detached from technologies when archived; the filter keeps the config self-consistent anyway.
      purposeKeys: t.purposeKeys.filter((key) => activeKeys.has(key)),
      cookies: t.cookies.map((c) => ({ name: c.name, domain: c.domain, maxAgeSeconds: c.maxAgeSeconds })),
    })),
  };
}

/**
 * A stored snapshot as a VisitorConfig. Snapshots stored before regions existed lack
 * `regionRules`, `consentMaxAgeDays` and `gppCmpId`, those stored before TCF lack `tcf`, and those
 * stored before the refusal cooldown lack `rejectCooldownDays`, those stored before US state
 * sections and Microsoft's signals lack `gppSections` and `integrations`, and those stored before
 * the first-party path lack `firstPartyPath`, `cookieDomain`, `crossDomain` and `imports`; they
 * meant the defaults (opt-in everywhere, 180 days, no GPP, no TCF, no cooldown, usnat, no
 * integrations, no path, a host-only cookie, no handoffs, no imports), so they read as such, and a
 * channel's first change after the upgrade is compared with what it really showed.
 */
export function snapshotConfig(snapshot: unknown): VisitorConfig {
  const config = snapshot as Partial<VisitorConfig> &
    Omit<
      VisitorConfig,
      | 'regionRules'
      | 'consentMaxAgeDays'
      | 'rejectCooldownDays'
      | 'gppCmpId'
      | 'gppSections'
      | 'tcf'
      | 'integrations'
      | 'firstPartyPath'
      | 'cookieDomain'
      | 'crossDomain'
      | 'imports'
    >;
  if (
    config.regionRules !== undefined &&
    config.consentMaxAgeDays !== undefined &&
    config.rejectCooldownDays !== undefined &&
    config.gppCmpId !== undefined &&
    config.gppSections !== undefined &&
    config.tcf !== undefined &&
    config.integrations !== undefined &&
    config.imports !== undefined
  ) {
    return config as VisitorConfig;
  }
  return {
    ...config,
    regionRules: config.regionRules ?? (DEFAULT_REGION_RULES as RegionRule[]),
    consentMaxAgeDays: config.consentMaxAgeDays ?? DEFAULT_CONSENT_MAX_AGE_DAYS,
    rejectCooldownDays: config.rejectCooldownDays ?? 0,
    gppCmpId: config.gppCmpId ?? null,
    gppSections: config.gppSections ?? 'usnat',
    tcf: config.tcf ?? null,
    integrations: config.integrations ?? { microsoftUet: false, microsoftClarity: false },
    firstPartyPath: config.firstPartyPath ?? null,
    cookieDomain: config.cookieDomain ?? null,
    crossDomain: config.crossDomain ?? false,
    imports: config.imports ?? [],
  };
}

function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Whether two configs show a visitor the same thing, configVersion aside. Key order is ignored
 * (jsonb does not keep it); array order counts (it is the banner's order).
 */
export function sameVisitorConfig(a: VisitorConfig, b: VisitorConfig): boolean {
  return canonicalJson({ ...a, configVersion: 0 }) === canonicalJson({ ...b, configVersion: 0 });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The snapshot's `tcf` schema and the tcf module's SnapshotTcf type are one shape (checked both ways). */
type SchemaTcf = NonNullable<VisitorConfig['tcf']>;
const _tcfShapes: [SchemaTcf, SnapshotTcf] extends [SnapshotTcf, SchemaTcf] ? true : never = true;
void _tcfShapes;
