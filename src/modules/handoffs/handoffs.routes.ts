import type { onRequestHookHandler } from 'fastify';
import { PUBLIC_BODY } from '../../platform/http/body-limits.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { validationFailed } from '../../platform/http/errors.ts';
import { ipPrefix } from '../../platform/http/ip.ts';
import { Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import {
  callerOf,
  locationOf,
  preflightRoute,
  publicProblems,
  requireAllowedOrigin,
  siteOf,
  tags,
} from '../sites/public-site.service.ts';
import { DecisionCookieHeaders, SiteParams } from '../sites/sites.schemas.ts';
import type { SitesService } from '../sites/sites.service.ts';
import {
  AppHandoffBody,
  AppHeaders,
  Handoff,
  HandoffBody,
  RedeemBody,
  RedeemedChoice,
} from './handoffs.schemas.ts';
import type { HandoffsService } from './handoffs.service.ts';

const HANDOFFS = '/v1/public/sites/:siteKey/handoffs';
const REDEEM = '/v1/public/sites/:siteKey/handoffs/redeem';
const APP_HANDOFFS = '/v1/public/sites/:siteKey/app-handoffs';

/**
 * A visitor's choice, handed over between the channel's registrable domains
 * (docs/guides/keep-the-choice.md). Registered origins only, after a CORS preflight; no
 * Idempotency-Key: a retried create just makes another token, and a redeem spends its token, so a
 * stored answer (which would hold the visitor's decision) would replay nothing a retry needs.
 */
export function handoffsRoutes(
  app: App,
  deps: {
    handoffs: Pick<HandoffsService, 'create' | 'createForApp' | 'redeem'>;
    sites: Pick<SitesService, 'setDecisionCookie'>;
    publicHooks: onRequestHookHandler[];
  },
) {
  const { handoffs, sites, publicHooks } = deps;
  preflightRoute(app, HANDOFFS, 'preflightHandoffs', publicHooks);
  preflightRoute(app, REDEEM, 'preflightHandoffRedeem', publicHooks);
  const problems = { 400: Problem, 403: Problem, 413: Problem, 415: Problem, 422: Problem };

  app.post(
    HANDOFFS,
    {
      config: { auth: 'public', idempotency: false },
      ...PUBLIC_BODY,
      onRequest: [...publicHooks, requireAllowedOrigin],
      schema: {
        operationId: 'createHandoff',
        tags,
        summary:
          'A single-use token (120 s) that takes the visitor’s choice to another registered origin of the channel on another registrable domain (crossDomain on)',
        params: SiteParams,
        body: HandoffBody,
        response: { 201: Envelope(Handoff), ...problems, ...publicProblems },
      },
    },
    async (request, reply) => {
      if (request.consentApp) {
        throw validationFailed(
          [{ path: '/target', message: 'an app hands its choice to a WebView page with app-handoffs' }],
          'An app channel has no origins to hand a choice between: POST …/app-handoffs gives the token for a WebView page.',
        );
      }
      const origin = new URL(request.headers.origin as string).origin;
      const { token, expiresAt } = await handoffs.create(siteOf(request), request.body, origin);
      reply.code(201);
      return envelope({ token, expiresAt: apiDate(expiresAt) });
    },
  );

  app.post(
    REDEEM,
    {
      config: { auth: 'public', idempotency: false },
      ...PUBLIC_BODY,
      onRequest: [...publicHooks, requireAllowedOrigin],
      schema: {
        operationId: 'redeemHandoff',
        tags,
        summary:
          'Redeem a handoff token on its target origin: the visitor’s choice, recorded here as evidence (source "handoff") unless the visitor’s own decision here is newer; every token that cannot be redeemed is 404 handoff_not_found',
        params: SiteParams,
        body: RedeemBody,
        response: {
          200: {
            description:
              'The choice that holds here now: the one handed over, or the visitor’s own when newer',
            headers: DecisionCookieHeaders,
            content: { 'application/json': { schema: Envelope(RedeemedChoice) } },
          },
          ...problems,
          ...publicProblems,
        },
      },
    },
    async (request, reply) => {
      const userAgent = request.headers['user-agent'];
      const { decision } = await handoffs.redeem(siteOf(request), request.body, {
        ...callerOf(request),
        userAgent: typeof userAgent === 'string' && userAgent !== '' ? userAgent : null,
        ipPrefix: ipPrefix(request.ip),
        location: locationOf(request),
        secGpc: request.headers['sec-gpc'] === '1',
      });
      const decisions = decision.decisions ?? {};
      const configVersion = decision.configVersion as number;
      sites.setDecisionCookie(request, reply, {
        s: request.body.subjectId,
        d: decisions,
        v: configVersion,
        t: decision.recordedAt.getTime(),
        ...(decision.source === 'gpc' && { g: 1 as const }),
      });
      return envelope({ decisions, configVersion, recordedAt: apiDate(decision.recordedAt) });
    },
  );

  app.post(
    APP_HANDOFFS,
    {
      config: { auth: 'public', idempotency: false },
      ...PUBLIC_BODY,
      // An app channel's hook checked the app (X-Consent-App) with the site; no browser gets here.
      onRequest: publicHooks,
      schema: {
        operationId: 'createAppHandoff',
        tags,
        summary:
          'From an app (X-Consent-App): a single-use token (120 s) that takes the visitor’s choice into a WebView page, on a registered origin of a web channel of the same organization, opened with `#cs_app=<token>` and redeemed there with …/handoffs/redeem',
        params: SiteParams,
        headers: AppHeaders,
        body: AppHandoffBody,
        response: { 201: Envelope(Handoff), ...problems, ...publicProblems },
      },
    },
    async (request, reply) => {
      const app = request.consentApp;
      if (!app) {
        throw validationFailed(
          [{ path: '/targetSiteKey', message: 'app-handoffs are asked for by the apps of an app channel' }],
          'This is a web channel: only an app channel’s apps ask for app-handoffs; a page hands its choice over with …/handoffs.',
        );
      }
      const { token, expiresAt } = await handoffs.createForApp(siteOf(request), request.body, app);
      reply.code(201);
      return envelope({ token, expiresAt: apiDate(expiresAt) });
    },
  );
}
