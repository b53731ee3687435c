import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { PUBLIC_BODY } from '../../platform/http/body-limits.ts';
import { ipPrefix } from '../../platform/http/ip.ts';
import { Envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { siteIdempotencyOwner } from '../../platform/idempotency/idempotency.scope.ts';
import type { DecisionOutcome, Metrics } from '../../platform/metrics/metrics.ts';
import type { StoredDecision } from '../../shared/decision-cookie.ts';
import {
  callerOf,
  locationOf,
  preflightRoute,
  publicProblems,
  requireAllowedOrigin,
  siteOf,
  tags,
} from '../sites/public-site.service.ts';
import { DecisionCookieHeaders, RegionQuery, SiteParams } from '../sites/sites.schemas.ts';
import type { SitesService } from '../sites/sites.service.ts';
import { PreferencesBody, PreferencesProblem, PreferencesReceipt } from './consent.schemas.ts';
import type { ConsentService } from './consent.service.ts';

/**
 * What a customer's pages post of their visitors' decisions (preferences). Only browsers on a
 * registered origin may post (a JSON POST has its CORS preflight); `publicHooks` (the sites
 * module's) rate limit them and resolve their site first. The handler makes one call: the consent
 * service records the decision (and commits it, with the request's Idempotency-Key record if it
 * has one) and says how to answer it and how the analytics count it.
 */
export function consentRoutes(
  app: App,
  deps: {
    consent: Pick<ConsentService, 'recordPreferences' | 'close'>;
    /** The sites module's decision cookie, set on answers that came through the first-party path. */
    sites: Pick<SitesService, 'setDecisionCookie'>;
    metrics: Pick<Metrics, 'decisionRecorded'>;
    publicHooks: onRequestHookHandler[];
  },
) {
  const { consent, sites, metrics, publicHooks } = deps;
  app.addHook('onClose', () => consent.close());
  // A decision this process recorded, counted once its 201 is sent (a replayed 201 runs no handler).
  const outcomes = new WeakMap<FastifyRequest, DecisionOutcome>();
  // The decision cookie of a decision this request recorded, set as its own 201 goes out.
  const cookies = new WeakMap<FastifyRequest, StoredDecision>();

  const preflight = (url: string, operationId: string) => preflightRoute(app, url, operationId, publicHooks);

  preflight('/v1/public/sites/:siteKey/preferences', 'preflightPreferences');

  app.post(
    '/v1/public/sites/:siteKey/preferences',
    {
      // A visitor's browser posts it: at most 64 KiB (body-limits.ts).
      ...PUBLIC_BODY,
      config: {
        auth: 'public',
        idempotency: {
          owner: (request) => {
            const { channel } = siteOf(request);
            // The stored 201 holds the receipt token: sealed with the visitor's own subjectId, which
            // is never stored, so only a retry of the same body (the same subjectId) opens it.
            const { subjectId } = request.body as { subjectId: string };
            return siteIdempotencyOwner(
              channel.siteKey,
              channel.organizationId,
              channel.environment,
              `subject:${subjectId}`,
            );
          },
          // The consent service commits the event with the key's record in its own statement (the
          // evidence group commit), through request.keyedWrite: no transaction spans the handler.
          handlerCommits: true,
        },
      },
      onRequest: [...publicHooks, requireAllowedOrigin],
      // Through the first-party path the service keeps the decision in the visitor's browser itself
      // (docs/guides/keep-the-choice.md), on the 201 of the decision this request recorded only: a
      // replayed answer (Idempotency-Key) or a refusal sets none, so the cookie never names a
      // decision that was not recorded, and the stored answer never holds the visitor's raw id.
      onSend: async (request, reply, payload) => {
        const value = cookies.get(request);
        if (value && reply.statusCode === 201 && reply.getHeader('idempotent-replayed') === undefined)
          sites.setDecisionCookie(request, reply, value);
        return payload;
      },
      onResponse: async (request, reply) => {
        const outcome = outcomes.get(request);
        if (outcome && reply.statusCode === 201) metrics.decisionRecorded(outcome);
      },
      schema: {
        operationId: 'recordPreferences',
        tags,
        summary: "Record a visitor's consent decision as evidence",
        params: SiteParams,
        querystring: RegionQuery,
        body: PreferencesBody,
        response: {
          ...publicProblems,
          201: {
            description: 'Recorded',
            headers: DecisionCookieHeaders,
            content: { 'application/json': { schema: Envelope(PreferencesReceipt) } },
          },
          400: Problem,
          401: Problem,
          403: Problem,
          409: Problem,
          413: Problem,
          415: Problem,
          422: PreferencesProblem,
        },
      },
    },
    async (request, reply) => {
      const userAgent = request.headers['user-agent'];
      const recorded = await consent.recordPreferences(
        siteOf(request),
        request.body,
        {
          ...callerOf(request),
          userAgent: typeof userAgent === 'string' && userAgent !== '' ? userAgent : null,
          ipPrefix: ipPrefix(request.ip),
          location: locationOf(request),
          // Browsers with GPC on send it with every request (an opt-out in opt-out regions).
          secGpc: request.headers['sec-gpc'] === '1',
        },
        request.keyedWrite,
      );
      // Its Idempotency-Key was held: the idempotency layer replays the first answer. (Not `return
      // reply`: the layer awaits this handler, and a reply settles only once it is sent.)
      if (recorded === null) return;
      const { row, outcome, answer } = recorded;
      outcomes.set(request, outcome);
      cookies.set(request, {
        s: request.body.subjectId,
        d: row.decisions ?? {},
        v: row.configVersion as number,
        // An imported choice is as old as the visitor's choice in the previous CMP, not the import.
        t: row.importedFrom ? Date.parse(row.importedFrom.recordedAt) : row.recordedAt.getTime(),
        ...(row.source === 'gpc' && { g: 1 as const }),
      });
      reply.code(201);
      return answer;
    },
  );
}
