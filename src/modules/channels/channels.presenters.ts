import { apiDate } from '../../platform/http/dates.ts';
import type { AppRow } from './apps.repo.ts';
import type { ChannelRow, ConfigVersionRow, OriginRow, PurposeRow, TechnologyRow } from './channels.repo.ts';
import { snapshotConfig } from './visitor-config.ts';

/** The API representations of channels and their parts: rows in, resources out. */

export function presentChannel(channel: ChannelRow) {
  return {
    id: channel.id,
    name: channel.name,
    description: channel.description,
    status: channel.status,
    environment: channel.environment,
    siteKey: channel.siteKey,
    privacyPolicy: {
      url: channel.privacyPolicyUrl,
      version: channel.privacyPolicyVersion,
      retentionDays: channel.retentionDays,
    },
    configVersion: channel.configVersion,
    defaultLanguage: channel.defaultLanguage,
    regionRules: channel.regionRules,
    consentMaxAgeDays: channel.consentMaxAgeDays,
    rejectCooldownDays: channel.rejectCooldownDays,
    gppCmpId: channel.gppCmpId,
    gppSections: channel.gppSections,
    reopenControl: channel.reopenControl,
    tcf: channel.tcf && {
      ...channel.tcf,
      publisherRestrictions: channel.tcf.publisherRestrictions ?? [],
      googleAdditionalConsent: channel.tcf.googleAdditionalConsent ?? null,
      unknownRegion: channel.tcf.unknownRegion ?? 'gdpr',
    },
    integrations: channel.integrations,
    firstPartyPath: channel.firstPartyPath,
    cookieDomain: channel.cookieDomain,
    crossDomain: channel.crossDomain,
    imports: channel.imports,
    platform: channel.platform,
    createdAt: apiDate(channel.createdAt),
    updatedAt: apiDate(channel.updatedAt),
    archivedAt: apiDate(channel.archivedAt),
  };
}

export function presentPurpose(purpose: PurposeRow) {
  return {
    id: purpose.id,
    channelId: purpose.channelId,
    key: purpose.key,
    name: purpose.name,
    description: purpose.description,
    legalBasis: purpose.legalBasis,
    required: purpose.required,
    status: purpose.status,
    translations: purpose.translations,
    consentModeSignals: purpose.consentModeSignals,
    gpcOptOut: purpose.gpcOptOut,
    createdAt: apiDate(purpose.createdAt),
    updatedAt: apiDate(purpose.updatedAt),
  };
}

export function presentTechnology(technology: TechnologyRow) {
  return {
    id: technology.id,
    channelId: technology.channelId,
    name: technology.name,
    vendor: technology.vendor,
    purposeKeys: technology.purposeKeys,
    cookies: technology.cookies,
    hosts: technology.hosts,
    createdAt: apiDate(technology.createdAt),
    updatedAt: apiDate(technology.updatedAt),
  };
}

export function presentOrigin(origin: OriginRow) {
  return {
    id: origin.id,
    channelId: origin.channelId,
    origin: origin.origin,
    status: origin.status,
    createdAt: apiDate(origin.createdAt),
  };
}

export function presentApp(app: AppRow) {
  return {
    id: app.id,
    channelId: app.channelId,
    appId: app.appId,
    store: app.store,
    status: app.status,
    createdAt: apiDate(app.createdAt),
  };
}

export function presentConfigVersion(row: ConfigVersionRow) {
  return {
    version: row.version,
    createdAt: apiDate(row.createdAt),
    reconsent: row.reconsent,
    config: snapshotConfig(row.snapshot),
  };
}
