import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyRequest, LogController } from 'fastify';
import type { Config } from './config.ts';
import { analyticsRoutes } from './modules/analytics/analytics.routes.ts';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { channelsRoutes } from './modules/channels/channels.routes.ts';
import { consentRoutes } from './modules/consent/consent.routes.ts';
import { consolePages } from './modules/console/console.pages.ts';
import { consoleRoutes } from './modules/console/console.routes.ts';
import { sessionAuthenticator } from './modules/console/session-auth.ts';
import { demoPage } from './modules/demo/demo.page.ts';
import { consentStateRoutes } from './modules/evidence/consent-state.routes.ts';
import { evidenceRoutes } from './modules/evidence/evidence.routes.ts';
import { exportsRoutes } from './modules/exports/exports.routes.ts';
import { handoffsRoutes } from './modules/handoffs/handoffs.routes.ts';
import { identitySecretsRoutes } from './modules/identity/identity-secrets.routes.ts';
import { siteIdentityRoutes } from './modules/identity/site-identity.routes.ts';
import { ledgerRoutes } from './modules/ledger/ledger.routes.ts';
import { receiptsRoutes } from './modules/receipts/receipts.routes.ts';
import { scansRoutes } from './modules/scans/scans.routes.ts';
import { configFastPath } from './modules/sites/config-fast-path.ts';
import { siteImpressionsRoutes } from './modules/sites/site-impressions.routes.ts';
import { vendorListSite } from './modules/sites/site-tcf.ts';
import { siteAuditContextOf, sitesRoutes } from './modules/sites/sites.routes.ts';
import { tcfRoutes } from './modules/tcf/tcf.routes.ts';
import { tcfVendorListRoutes } from './modules/tcf/vendor-list/tcf-vendor-list.routes.ts';
import { deliveriesRoutes } from './modules/webhooks/deliveries.routes.ts';
import { destinationsRoutes } from './modules/webhooks/destinations.routes.ts';
import { auditContextOf, installAuth, type RouteTableEntry } from './platform/auth/auth.hooks.ts';
import type { Clock } from './platform/clock.ts';
import { serviceSecret } from './platform/db/service-secrets.ts';
import type { Store } from './platform/db/store.ts';
import { BODY_LIMIT_BYTES } from './platform/http/body-limits.ts';
import { createCursorCodec } from './platform/http/cursor.ts';
import { installDocs } from './platform/http/docs.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './platform/http/error-handler.ts';
import type { AppError } from './platform/http/errors.ts';
import { type FastPath, fastPathServerFactory } from './platform/http/fast-path-server.ts';
import { closeIdleConnectionsWhileClosing } from './platform/http/graceful-close.ts';
import { guideRoutes } from './platform/http/guides.ts';
import { healthRoutes } from './platform/http/health.ts';
import { trustProxyFunction } from './platform/http/ip.ts';
import { lazySerializerFactory, lazyValidatorCompiler } from './platform/http/lazy-compilers.ts';
import { errorLogSerializer, loggerOptions, requestLogSerializer } from './platform/http/logging.ts';
import { packageTarballRoutes } from './platform/http/package-tarballs.ts';
import { installPlaceholderCheck } from './platform/http/placeholders.ts';
import { requestIdFor } from './platform/http/request-id.ts';
import type { RouteParams } from './platform/http/request-line.ts';
import { installIdempotency } from './platform/idempotency/idempotency.hooks.ts';
import { installObservability } from './platform/metrics/observability.ts';
import { installRateLimits } from './platform/rate-limit/rate-limit.install.ts';
import { createServices, type Services } from './services.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  /** Pino options, or false to log nothing (tests). */
  logger?: boolean | object;
  /** Services shared with a worker in the same process; made here when omitted. */
  services?: Services;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    routeTable: RouteTableEntry[];
  }
}

// Fastify's default is no limit: a client sending its request slowly (slowloris) would hold a
// connection forever. A whole request (headers and a body of at most 1 MiB) gets 30 s.
const REQUEST_TIMEOUT_MS = 30_000;
/** Fastify's default: idle keep-alive connections are closed after 72 s. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** The HTTP app with every module's routes; it does not listen (tests and main decide). */
export async function buildApp(deps: AppDeps) {
  const { config, store, clock } = deps;
  const trust = trustProxyFunction(config.trustProxy);
  const fastPaths: FastPath[] = [];
  // Set once the app exists: the parser's errors come only after it listens.
  let routeParams: RouteParams = () => null;
  const app = Fastify({
    logger: loggerOptions(deps.logger, {
      level: config.logLevel,
      // Bodies are never logged; the URL is, with secret query values (a raw subjectId) redacted;
      // an error is, without the values a failed query carried (its parameters).
      serializers: { req: requestLogSerializer, err: errorLogSerializer },
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', '*.secret'],
        censor: '[redacted]',
      },
    }),
    // Authenticated bodies; the public POSTs take PUBLIC_BODY (64 KiB) on their routes.
    bodyLimit: BODY_LIMIT_BYTES,
    // A plugin slow to load (the docs UI reads its files) on a machine busy with other work makes a
    // slow start, not a failed one: Fastify's 10 s default was once passed on a loaded CI machine.
    pluginTimeout: 60_000,
    // Response serializers compiled at a route's first answer, not all at start (lazy-compilers.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
    // Behind a load balancer, request.ip must be the visitor's (rate limits, evidence ipPrefix).
    trustProxy: trust,
    // Fastify's server, offering each request to the routes answered from memory first.
    serverFactory: fastPathServerFactory(fastPaths, {
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
    }),
    genReqId: requestIdFor,
    // Fastify's two lines per request are replaced by one richer line (platform/metrics/observability.ts).
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: false },
    frameworkErrors: frameworkErrors(config.docsUrl),
    // A placeholder the parser refused (a raw `…`) is named by the route's parameter it stands in.
    clientErrorHandler: clientErrorHandler(config.docsUrl, (method, url) => routeParams(method, url)),
  }).withTypeProvider<TypeBoxTypeProvider>();

  routeParams = (method, url) => app.findRoute({ method: method as 'GET', url })?.params ?? null;

  // Validators compiled at a route's first request, not all at start (lazy-compilers.ts).
  app.setValidatorCompiler(lazyValidatorCompiler);
  // Fastify parses text/plain by default, so a JSON route given one saw a string and answered 422.
  // Every body of this API is JSON (the SDK and the console send application/json; the public
  // preferences endpoint answers a CORS preflight, so it need not accept a CORS-simple type):
  // any other media type is 415 unsupported_media_type.
  app.removeContentTypeParser('text/plain');

  const services = deps.services ?? createServices({ store, clock, config });
  const cursors = createCursorCodec(await serviceSecret(store, 'cursor-signing'));
  const routeTable: RouteTableEntry[] = [];
  app.decorate('services', services);
  app.decorate('routeTable', routeTable);

  // Synchronous hooks on the hot path: an async one costs a promise and a microtask per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    // No response is ever to be sniffed into another type (a JSON string rendered as HTML).
    reply.header('X-Content-Type-Options', 'nosniff');
    done();
  });
  // One log line and one metrics observation per request, and GET /metrics.
  installObservability(app, { metrics: services.metrics, token: config.metricsToken });

  installErrorHandling(app, {
    docsUrl: config.docsUrl,
    // Every 403 is audited, with the route but never the body.
    onForbidden: async (request: FastifyRequest, error: AppError) => {
      // A public site call has no principal: a refused origin is audited in the site's organization.
      const context = request.principal ? auditContextOf(request) : siteAuditContextOf(request);
      if (!context) return;
      // One entry per actor, route and minute with a count: a flood of refusals adds no rows.
      await store.tx((tx) =>
        services.audit.recordDenied(tx, context, {
          type: 'route',
          id: `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`,
        }),
      );
      request.log.info({ code: error.code }, 'access denied');
    },
  });

  const rateLimit = await installRateLimits(app, {
    redisUrl: config.redisUrl,
    redisPrefix: config.rateLimitRedisPrefix,
    perMinute: config.rateLimitPerMinute,
    organizationPerMinute: config.orgRateLimitPerMinute,
    publicPerMinute: config.publicRateLimitPerMinute,
    clock,
    onReject: services.metrics.rateLimitRejected,
  });
  installAuth(app, {
    authenticate: services.apiKeys.authenticate,
    // The console's members call the same /v1 API with their session cookie.
    authenticateSession: sessionAuthenticator(services.sessions),
    afterAuth: [rateLimit],
    routeTable,
  });
  // After authentication, scope and rate limit, before validation: `ch_…` copied from the docs is a 400.
  installPlaceholderCheck(app);
  // Before any route: it wraps the handlers of mutating routes as they are added.
  installIdempotency(app, { store, clock, docsUrl: config.docsUrl });
  await installDocs(app);
  guideRoutes(app);
  packageTarballRoutes(app, { baseUrl: config.baseUrl });
  healthRoutes(app, { store });
  consoleRoutes(app, {
    sessions: services.sessions,
    limiter: app.rateLimiter,
    signInPerMinute: config.signInRateLimitPerMinute,
    secureCookies: config.baseUrl.startsWith('https:'),
  });
  consolePages(app);
  demoPage(app, { sites: services.sites, baseUrl: config.baseUrl });
  apiKeysRoutes(app, { apiKeys: services.apiKeys, cursors });
  auditRoutes(app, { audit: services.audit, cursors });
  channelsRoutes(app, { channels: services.channels, cursors });
  // The public site endpoints, in this order: assets, the decisions (consent), impressions, identity.
  const publicHooks = sitesRoutes(app, { sites: services.sites });
  consentRoutes(app, {
    consent: services.consent,
    sites: services.sites,
    metrics: services.metrics,
    publicHooks,
  });
  siteImpressionsRoutes(app, {
    sites: services.sites,
    analytics: services.analytics,
    metrics: services.metrics,
    publicHooks,
  });
  // Signed-in visitors: an identity token in, the account's current choice out.
  siteIdentityRoutes(app, { identity: services.identity, sites: services.sites, publicHooks });
  identitySecretsRoutes(app, { identity: services.identity });
  // A visitor's choice handed over to the channel's other registrable domains.
  handoffsRoutes(app, { handoffs: services.handoffs, sites: services.sites, publicHooks });
  // The channel's slice of the IAB Global Vendor List (its config's vendorListUrl), and the whole list.
  tcfVendorListRoutes(app, {
    tcf: services.tcf,
    site: vendorListSite({ publicHooks, channels: services.channels }),
  });
  tcfRoutes(app, { tcf: services.tcf });
  fastPaths.push(
    configFastPath({
      sites: services.sites,
      limiter: app.rateLimiter,
      perMinute: config.publicRateLimitPerMinute,
      trust,
      metrics: services.metrics,
      log: app.log,
    }),
  );
  evidenceRoutes(app, { evidence: services.evidence, cursors });
  consentStateRoutes(app, { evidence: services.evidence });
  analyticsRoutes(app, { analytics: services.analytics });
  closeIdleConnectionsWhileClosing(app);
  // Impressions counted in memory are written before the process goes, so none is lost.
  app.addHook('onClose', async () => {
    await services.analytics
      .flushImpressions()
      .catch((error) => app.log.warn({ err: error }, 'impressions not written'));
  });
  // /v1/evidence/tree-heads and /consistency are static segments: Fastify prefers them to /v1/evidence/:id.
  ledgerRoutes(app, { ledger: services.ledger, cursors });
  receiptsRoutes(app, { receipts: services.receipts });
  exportsRoutes(app, { exports: services.exports, cursors });
  scansRoutes(app, { scans: services.scans, cursors });
  await services.webhooks.prepare(app.log);
  // This server's clock against the database's, now and every CLOCK_CHECK_SECONDS (clock-check.ts).
  await services.clockCheck.start(({ skewed, offsetMs }) => {
    const offsetSeconds = Math.round(offsetMs / 1000);
    if (skewed)
      app.log.warn(
        { offsetSeconds },
        "this server's clock is too far from the database's: decisions are refused (503 clock_skew) and the retention purge waits until it is synchronised",
      );
    else app.log.info({ offsetSeconds }, "this server's clock agrees with the database's again");
  });
  app.addHook('onClose', async () => services.clockCheck.stop());
  destinationsRoutes(app, { destinations: services.webhooks.destinations, cursors });
  deliveriesRoutes(app, { deliveries: services.webhooks.deliveries, cursors });

  await app.ready();
  return app;
}

export type BuiltApp = Awaited<ReturnType<typeof buildApp>>;
