import type { onRequestHookHandler } from 'fastify';
import { PUBLIC_BODY } from '../../platform/http/body-limits.ts';
import { Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { SiteParams } from '../sites/sites.schemas.ts';
import {
  preflightRoute,
  publicProblems,
  requireAllowedOrigin,
  siteOf,
  tags,
} from '../sites/sites.service.ts';
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
    publicHooks: onRequestHookHandler[];
  },
) {
  const { identity, publicHooks } = deps;
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
          200: Envelope(IdentityAnswer),
          400: Problem,
          401: Problem,
          403: Problem,
          413: Problem,
          415: Problem,
          422: Problem,
          ...publicProblems,
        },
      },
    },
    async (request) => {
      const { channel } = siteOf(request);
      const accountId = await identity.accountOf(channel, request.body.token);
      return envelope({ state: await identity.accountChoice(request.db, channel, accountId) });
    },
  );
}
