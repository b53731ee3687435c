import { randomBytes } from 'node:crypto';
import type { onRequestHookHandler } from 'fastify';
import { PUBLIC_BODY } from '../../platform/http/body-limits.ts';
import { Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { deviceChoiceIsNewer } from '../../shared/decision-cookie.ts';
import {
  preflightRoute,
  publicProblems,
  requireAllowedOrigin,
  siteOf,
  tags,
} from '../sites/public-site.service.ts';
import { DecisionCookieHeaders, SiteParams } from '../sites/sites.schemas.ts';
import type { SitesService } from '../sites/sites.service.ts';
import { IdentityAnswer, IdentityBody } from './identity.schemas.ts';
import type { IdentityService } from './identity.service.ts';

const IDENTITY = '/v1/public/sites/:siteKey/identity';

/**
 * A signed-in visitor's page tells the service whose account it is (docs/guides/signed-in-visitors.md):
 * the SDK sends the identity token the site's backend signed, and gets the account's current
 * choice, so a device where the account already chose shows no banner. Read-only: nothing is
 * stored, the account id is never logged (bodies never are).
 */
export function siteIdentityRoutes(
  app: App,
  deps: {
    identity: Pick<IdentityService, 'accountOf' | 'accountChoice'>;
    /** The sites module's decision cookie, set on answers that came through the first-party path. */
    sites: Pick<SitesService, 'setDecisionCookie' | 'sentDecision' | 'sentVisitorId'>;
    publicHooks: onRequestHookHandler[];
  },
) {
  const { identity, sites, publicHooks } = deps;
  preflightRoute(app, IDENTITY, 'preflightIdentity', publicHooks);

  app.post(
    IDENTITY,
    {
      ...PUBLIC_BODY,
      // Nothing is written: there is nothing an Idempotency-Key could protect, and its stored answer
      // would hold the account's choice.
      config: { auth: 'public', idempotency: false },
      onRequest: [...publicHooks, requireAllowedOrigin],
      schema: {
        operationId: 'identifyVisitor',
        tags,
        summary:
          'A signed-in visitor’s identity token in, the account’s current choice out (null: none yet); a token not accepted is 401 invalid_identity_token',
        params: SiteParams,
        body: IdentityBody,
        response: {
          ...publicProblems,
          200: {
            description: 'The account’s current choice',
            headers: DecisionCookieHeaders,
            content: { 'application/json': { schema: Envelope(IdentityAnswer) } },
          },
          400: Problem,
          401: Problem,
          403: Problem,
          413: Problem,
          415: Problem,
          422: Problem,
        },
      },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const accountId = await identity.accountOf(site.channel, request.body.token);
      const state = await identity.accountChoice(request.db, site.channel, accountId);
      // Through the first-party path the cookie becomes the choice that holds on this device, as the
      // SDK decides it: the account's, unless the device's own is newer (then the SDK records that
      // one for the account, and its 201 sets the cookie). The device keeps its visitor id.
      if (state) {
        const device = sites.sentDecision(site, request.headers.cookie);
        const accountAt = Date.parse(state.recordedAt);
        if (!deviceChoiceIsNewer(device, accountAt)) {
          sites.setDecisionCookie(request, reply, {
            s: sites.sentVisitorId(site, request.headers.cookie) ?? randomBytes(16).toString('hex'),
            d: { ...state.purposes },
            v: state.configVersion,
            t: accountAt,
          });
        }
      }
      return envelope({ state });
    },
  );
}
