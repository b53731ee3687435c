import path from 'node:path';
import type { Config } from './config.ts';
import { createAnalyticsService } from './modules/analytics/analytics.service.ts';
import { createApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { apiKeyNames, apiKeyOwnerEmails } from './modules/api-keys/key-names.service.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { channelNames } from './modules/channels/channel-names.service.ts';
import { createChannelsService } from './modules/channels/channels.service.ts';
import {
  additionalConsentInUse,
  tcfChannelsExist,
  tcfLanguagesInUse,
} from './modules/channels/tcf-languages.sql.ts';
import { tcfVendorsInUse } from './modules/channels/tcf-vendors.sql.ts';
import { createConsentService } from './modules/consent/consent.service.ts';
import { createSessionsService } from './modules/console/sessions.service.ts';
import { createEvidenceService } from './modules/evidence/evidence.service.ts';
import { createExportsService } from './modules/exports/exports.service.ts';
import { createLocalFileStorage } from './modules/exports/file-storage.ts';
import { ledgerProofs } from './modules/exports/ledger-proofs.ts';
import { gppStub } from './modules/gpp/gpp-stub.ts';
import { createHandoffsService } from './modules/handoffs/handoffs.service.ts';
import { createIdentityService } from './modules/identity/identity.service.ts';
import { createLedgerService } from './modules/ledger/ledger.service.ts';
import { memberEmails } from './modules/organizations/member-emails.service.ts';
import { createOrganizationsService } from './modules/organizations/organizations.service.ts';
import { createReceiptsService } from './modules/receipts/receipts.service.ts';
import { createScansService } from './modules/scans/scans.service.ts';
import { createSitesService } from './modules/sites/sites.service.ts';
import { createTcStringCheck } from './modules/tcf/tc-strings/tc-string.ts';
import { createTcfService } from './modules/tcf/tcf.service.ts';
import { tcfStub } from './modules/tcf/tcf-stub.ts';
import { destinationUrls } from './modules/webhooks/destination-urls.service.ts';
import { createEventsService } from './modules/webhooks/events.service.ts';
import { createWebhooksService } from './modules/webhooks/webhooks.service.ts';
import type { Clock } from './platform/clock.ts';
import { createClockCheck } from './platform/clock-check.ts';
import type { Store } from './platform/db/store.ts';
import { createJobQueue } from './platform/jobs/job-queue.ts';
import { createMetrics } from './platform/metrics/metrics.ts';

/** Every module's service, wired with its dependencies. Shared by the HTTP app, the CLI and tests. */
export function createServices(deps: { store: Store; clock: Clock; config: Config }) {
  const { store, clock } = deps;
  const jobs = createJobQueue({ clock });
  // One registry per services instance (API and worker of one process share it; tests build many).
  const metrics = createMetrics({ store, clock });
  // This server's clock against the database's: decisions are refused past the bound, not recorded
  // at a wrong time (docs/decisions/evidence-times.md). Started by the app (buildApp), not the CLI.
  const clockCheck = createClockCheck({
    store,
    clock,
    maxSkewMs: deps.config.clockSkewMaxMs,
    intervalMs: deps.config.clockCheckIntervalMs,
    onMeasured: metrics.clockOffset,
    onRefused: metrics.clockSkewRefused,
  });
  // The audit log names actors and targets by what each module calls them (audit-names.ts).
  const audit = createAuditService({
    clock,
    names: {
      name: {
        api_key: apiKeyNames,
        member: memberEmails,
        channel: channelNames,
        webhook_destination: destinationUrls,
      },
      email: { member: memberEmails, api_key: apiKeyOwnerEmails },
    },
  });
  // The webhook outbox: modules call events.emit inside their own transactions.
  const events = createEventsService({ clock, jobs });
  const webhooks = createWebhooksService({
    store,
    clock,
    config: deps.config,
    audit,
    jobs,
    onAttempt: metrics.webhookAttempt,
  });
  const organizations = createOrganizationsService({ store, clock });
  const sessions = createSessionsService({ store, clock, audit, organizations });
  const apiKeys = createApiKeysService({ store, clock, audit, events });
  // The IAB Global Vendor List mirror (docs/guides/tcf.md): channels check their TCF vendors against it.
  const tcf = createTcfService({
    store,
    clock,
    jobs,
    gvlUrl: deps.config.tcfGvlUrl,
    fetchTimeoutMs: deps.config.tcfGvlFetchTimeoutMs,
    // The languages of TCF channels: the mirror fetches IAB's translations for them.
    languagesInUse: tcfLanguagesInUse,
    // No TCF channel (and nobody asked for the list): the mirror fetches nothing and warns of nothing.
    tcfInUse: tcfChannelsExist,
    // The vendors of TCF channels: the mirror fetches their storage disclosures, through the address guard.
    storageDisclosures: {
      vendorsInUse: tcfVendorsInUse,
      allowPrivate: deps.config.tcfDisclosureAllowPrivateTargets,
      onFetchFailure: () => metrics.tcfVendorListFetchFailed('storage_disclosure'),
    },
    onFetchFailure: metrics.tcfVendorListFetchFailed,
    onVersion: metrics.tcfVendorListVersion,
    onLoad: metrics.tcfVendorListLoaded,
    onAsk: metrics.tcfVendorListAsked,
    // Google's ATP list, fetched through the address guard only while a channel uses Additional Consent.
    atp: {
      url: deps.config.googleAtpUrl,
      allowPrivate: deps.config.googleAtpAllowPrivateTargets,
      inUse: additionalConsentInUse,
    },
  });
  const channels = createChannelsService({ store, clock, audit, events, tcf });
  // A new list version re-snapshots every TCF channel with it (material where vendors declare more).
  tcf.whenNewVendorList(async (tx, version) => {
    await channels.adoptVendorList(tx, version);
  });
  // Consent analytics: decisions are counted by the consent write's own statement.
  const analytics = createAnalyticsService({ store, clock, findChannel: channels.findChannel });
  // consent.recorded is written to the webhook outbox in the transaction that stores the evidence.
  const evidence = createEvidenceService({
    store,
    clock,
    clockCheck,
    organizations,
    events,
    findChannel: channels.findChannel,
    // What a backend reads of a subject's TC string is what vendors on the page read: the string
    // re-encoded against the channel's current config (docs/guides/tcf.md, "Consent state").
    servedTcStrings: async (scope, channelId, recorded) => {
      const channel = await channels.findChannel(scope.organizationId, scope.environment, channelId);
      const notice = channel ? await channels.currentNotice(channel) : null;
      const current = notice?.config;
      if (!current?.tcf) return recorded.map(() => null);
      const configKey = `${current.channelId}:${current.configVersion}`;
      const purposeKeys = current.purposes.map((p) => p.key);
      return tcf.servedTcStrings(store.db, { configKey, tcf: current.tcf, purposeKeys }, recorded);
    },
    retentionObserver: metrics.retention,
  });
  // Signed-in visitors (docs/guides/signed-in-visitors.md): identity secrets, sealed like webhook
  // secrets, and the tokens signed with them.
  const identity = createIdentityService({
    store,
    clock,
    audit,
    channels,
    secretBox: webhooks.secretBox,
    evidence,
  });
  const sites = createSitesService({
    store,
    channels,
    // The stubs before the SDK's tag: GPP's with a gppCmpId, TCF's on a TCF channel.
    snippetStubs: ({ gppCmpId, tcf: tcfSettings, gppSections }) => [
      ...(gppCmpId ? [gppStub(gppCmpId, { tcf: !!tcfSettings, sections: gppSections })] : []),
      ...(tcfSettings ? [tcfStub()] : []),
    ],
    clock,
    baseUrl: deps.config.baseUrl,
    regionSettings: deps.config,
    // The process keeps serving with the data it has; the warning goes to stderr.
    onGeoIpReloadError: (error) => process.emitWarning(error.message),
    sdkCacheBytes: deps.config.sdkCacheBytes,
    sdkScriptsObserver: metrics.sdkScripts,
    configCache: { maxBytes: deps.config.configCacheBytes, maxIdleMs: deps.config.configCacheMaxIdleMs },
    configCacheObserver: metrics.configCache,
  });
  // A visitor's decision, from the request to its evidence event (docs/decisions/sites-and-evidence.md).
  const consent = createConsentService({
    sites,
    evidence,
    identity,
    // A decision's TC string, decoded with IAB's library against the versions the mirror holds.
    tcStrings: createTcStringCheck({
      vendorListFacts: (version) => tcf.vendorListFacts(version),
    }),
    clock,
    baseUrl: deps.config.baseUrl,
  });
  // A visitor's choice handed over between the channel's registrable domains (docs/guides/keep-the-choice.md).
  const handoffs = createHandoffsService({ store, clock, evidence, consent, sites });
  // The verifiable evidence ledger (docs/decisions/ledger.md): sealer, signing keys, proofs.
  const ledger = createLedgerService({
    store,
    clock,
    evidence,
    signingKeyPem: deps.config.ledgerSigningKey,
    dataDir: deps.config.dataDir,
    sealSeconds: deps.config.ledgerSealSeconds,
  });
  metrics.readSealLagWith(ledger.sealLag);
  metrics.readLedgerForksWith(ledger.forks.openCount);
  // Visitor receipts (docs/receipts.md): what a visitor's capability token opens.
  const receipts = createReceiptsService({
    evidence,
    channels,
    organizations,
    ledger,
  });
  // Export files under DATA_DIR/exports; export.succeeded/failed go to the outbox with the status change.
  const exports = createExportsService({
    store,
    clock,
    audit,
    channels,
    jobs,
    events,
    storage: createLocalFileStorage(path.join(deps.config.dataDir, 'exports')),
    // includeProofs: each line's inclusion proof against one signed tree head.
    proofs: ledgerProofs(ledger),
  });
  // Tracker scans (docs/guides/tracker-scans.md): headless Chromium in the worker role, findings judged
  // per channel.
  const scans = createScansService({
    store,
    clock,
    audit,
    channels,
    jobs,
    events,
    scanner: {
      chromiumPath: deps.config.scannerChromiumPath,
      allowPrivate: deps.config.scanAllowPrivateTargets,
      pageTimeoutMs: deps.config.scanPageTimeoutMs,
      scanTimeoutMs: deps.config.scanTimeoutMs,
      memoryLimitMb: deps.config.scanMemoryLimitMb,
    },
  });
  return {
    metrics,
    clockCheck,
    jobs,
    audit,
    events,
    webhooks,
    organizations,
    sessions,
    apiKeys,
    tcf,
    channels,
    evidence,
    analytics,
    identity,
    sites,
    consent,
    handoffs,
    exports,
    ledger,
    receipts,
    scans,
  };
}

export type Services = ReturnType<typeof createServices>;
