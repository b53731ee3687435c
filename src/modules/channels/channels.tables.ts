import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { GppSectionsMode } from '../../shared/us-gpp-sections.ts';
import type { RegionRule } from '../regions/regions.schemas.ts';
import type { ChannelTcf, PublisherRestriction } from '../tcf/settings/tcf-settings.service.ts';

/** A channel's TCF settings as stored (the API's `tcf` field): the tcf module's (tcf-settings.service.ts). */
export type { ChannelTcf, PublisherRestriction };

/** One previous CMP a channel imports decisions from (the API's `imports` items). */
export interface ChannelImport {
  from: 'onetrust' | 'cookiebot' | 'tcf';
  /** Their category id → our optional purpose key. */
  purposes: Record<string, string>;
}

/** A channel's Microsoft consent-signal integrations (the API's `integrations` field). */
export interface ChannelIntegrations {
  microsoftUet: boolean;
  microsoftClarity: boolean;
}

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const channels = pgTable(
  'channels',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status', { enum: ['active', 'archived'] }).notNull(),
    /** Public identifier for the site endpoints; unique across organizations, since it is all they get. */
    siteKey: text('site_key').notNull(),
    privacyPolicyUrl: text('privacy_policy_url'),
    privacyPolicyVersion: text('privacy_policy_version').notNull(),
    retentionDays: integer('retention_days').notNull(),
    /** The newest row of channel_config_versions for this channel. */
    configVersion: integer('config_version').notNull(),
    defaultLanguage: text('default_language').notNull(),
    /** Which regime applies in which visitor region (docs/regions.md), first match wins. */
    regionRules: jsonb('region_rules')
      .$type<RegionRule[]>()
      .notNull()
      .default(sql`'[{"regions":["*"],"regime":"opt-in"}]'::jsonb`),
    /** A stored decision older than this is asked again. */
    consentMaxAgeDays: integer('consent_max_age_days').notNull().default(180),
    /** Days without a banner after a refusal of every optional purpose (0: asked as usual). */
    rejectCooldownDays: integer('reject_cooldown_days').notNull().default(0),
    /** The operator's IAB CMP id; when set, the SDK provides the GPP API in US opt-out regions. */
    gppCmpId: integer('gpp_cmp_id'),
    /** Which GPP section US visitors get (src/shared/us-gpp-sections.ts): usnat, or their state's own. */
    gppSections: text('gpp_sections').$type<GppSectionsMode>().notNull().default('usnat'),
    /** The channel's IAB TCF settings (docs/guides/tcf.md); null: not a TCF CMP. */
    tcf: jsonb('tcf').$type<ChannelTcf>(),
    /** Microsoft UET and Clarity consent signals (docs/guides/tag-managers.md). */
    integrations: jsonb('integrations')
      .$type<ChannelIntegrations>()
      .notNull()
      .default(sql`'{"microsoftUet":false,"microsoftClarity":false}'::jsonb`),
    /** TCF channels: after a decision, a control that reopens the preferences ("none": the page's link only). */
    reopenControl: text('reopen_control', { enum: ['floating', 'none'] })
      .notNull()
      .default('floating'),
    /**
     * The path the site forwards to the service on its own origins (docs/guides/keep-the-choice.md);
     * null: the SDK calls the service directly and writes the decision cookie itself.
     */
    firstPartyPath: text('first_party_path'),
    /** The decision cookie's Domain (a registrable domain covering every origin); null: host-only. */
    cookieDomain: text('cookie_domain'),
    /** The choice is handed over to the channel's origins on other registrable domains. */
    crossDomain: boolean('cross_domain').notNull().default(false),
    /** Previous CMPs whose cookies the SDK imports decisions from. */
    imports: jsonb('imports').$type<ChannelImport[]>().notNull().default(sql`'[]'::jsonb`),
    /**
     * Where the channel's visitors are (docs/guides/apps.md): "web" pages on registered origins, or
     * "app" ids (channel_apps) whose public calls carry X-Consent-App instead of an Origin.
     */
    platform: text('platform', { enum: ['web', 'app'] })
      .notNull()
      .default('web'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
    archivedAt: at('archived_at'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('channels_site_key_key').on(t.siteKey),
    index('channels_list_idx').on(t.organizationId, t.environment, t.createdAt, t.id),
  ],
);

/** A channel as stored: what the repo reads, the site cache holds and the scanner takes. */
export type ChannelRow = typeof channels.$inferSelect;

export interface Translation {
  name: string;
  description: string | null;
}

export interface Cookie {
  name: string;
  domain: string | null;
  maxAgeSeconds: number | null;
}

export const purposes = pgTable(
  'purposes',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    key: text('key').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    legalBasis: text('legal_basis', { enum: ['consent', 'legitimate_interest'] }).notNull(),
    required: boolean('required').notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull(),
    translations: jsonb('translations').$type<Record<string, Translation>>().notNull(),
    consentModeSignals: text('consent_mode_signals').array().notNull(),
    gpcOptOut: boolean('gpc_opt_out').notNull(),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
    archivedAt: at('archived_at'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    // Archived purposes keep their key: evidence records decisions by key, so a key means one purpose forever.
    uniqueIndex('purposes_channel_key_key').on(t.organizationId, t.channelId, t.key),
    index('purposes_list_idx').on(t.organizationId, t.channelId, t.createdAt, t.id),
  ],
);

export const technologies = pgTable(
  'technologies',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    name: text('name').notNull(),
    vendor: text('vendor'),
    purposeKeys: text('purpose_keys').array().notNull(),
    cookies: jsonb('cookies').$type<Cookie[]>().notNull(),
    /** Hosts it loads from ("*.example.com" for subdomains): what a tracker scan matches requests by. */
    hosts: text('hosts').array().notNull().default(sql`'{}'`),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('technologies_list_idx').on(t.organizationId, t.channelId, t.createdAt, t.id),
  ],
);

export const origins = pgTable(
  'origins',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    /** Normalized (origin.ts), so equal origins are equal strings. */
    origin: text('origin').notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull(),
    createdAt: at('created_at').notNull(),
    archivedAt: at('archived_at'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    // Only active origins must be unique: an archived one may be registered again.
    uniqueIndex('origins_channel_origin_key')
      .on(t.organizationId, t.channelId, t.origin)
      .where(sql`status = 'active'`),
    index('origins_list_idx').on(t.organizationId, t.channelId, t.createdAt, t.id),
  ],
);

/**
 * The apps of an app channel (docs/guides/apps.md): what origins are to a web channel. `appId` is a
 * bundle id or package name, compared exactly (apps send it as their platform knows it).
 */
export const channelApps = pgTable(
  'channel_apps',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    appId: text('app_id').notNull(),
    store: text('store', { enum: ['apple', 'google', 'other'] }).notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull(),
    createdAt: at('created_at').notNull(),
    archivedAt: at('archived_at'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    // Only active app ids must be unique: an archived one may be registered again.
    uniqueIndex('channel_apps_channel_app_key')
      .on(t.organizationId, t.channelId, t.appId)
      .where(sql`status = 'active'`),
    index('channel_apps_list_idx').on(t.organizationId, t.channelId, t.createdAt, t.id),
  ],
);

/** One row per configVersion, written once and never updated: what visitors were shown. */
export const channelConfigVersions = pgTable(
  'channel_config_versions',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    version: integer('version').notNull(),
    snapshot: jsonb('snapshot').notNull(),
    /** A material change from the previous version: visitors who answered an older one are asked again. */
    reconsent: boolean('reconsent').notNull().default(true),
    /** The newest version with reconsent, as of this one: the config's `consentRequiredSince`. */
    consentRequiredSince: integer('consent_required_since').notNull(),
    createdAt: at('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.channelId, t.version] })],
);
