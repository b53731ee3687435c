import { Type } from '@sinclair/typebox';
import { principalOf } from '../../platform/auth/auth.hooks.ts';
import { notFound } from '../../platform/http/errors.ts';
import { authProblems, Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import {
  ConsentState,
  ConsentStateLookupBody,
  ConsentStateLookupResult,
  ConsentStateQuery,
} from './consent-state.schemas.ts';
import type { EvidenceService } from './evidence.service.ts';

/**
 * "May I use this person's data for this purpose now?" (docs/guides/check-consent.md): the newest decision
 * per purpose, one indexed read. Raw subject ids come in (the query's is redacted from logs) and are
 * pseudonymized at once; the lookup echoes the ids it was given and stores nothing.
 */
export function consentStateRoutes(app: App, deps: { evidence: EvidenceService }) {
  const { consentState } = deps.evidence;
  const tags = ['Consent state'];

  app.get(
    '/v1/consent-state',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'getConsentState',
        tags,
        summary: "A subject's consent state on a channel: the newest decision per purpose",
        querystring: ConsentStateQuery,
        response: { 200: Envelope(ConsentState), 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { channelId, subjectId } = request.query;
      const [state] = await consentState.states(principalOf(request), channelId, [subjectId]);
      if (!state) throw notFound('consent state');
      return envelope(state);
    },
  );

  app.post(
    '/v1/consent-state/lookups',
    {
      // Read-only: an Idempotency-Key would store the answer, which names raw subject ids.
      config: { auth: { scope: 'evidence:read' }, idempotency: false },
      schema: {
        operationId: 'lookupConsentState',
        tags,
        summary: 'The consent state of up to 100 subjects on a channel, in input order (null: no decision)',
        body: ConsentStateLookupBody,
        response: {
          200: Envelope(Type.Array(ConsentStateLookupResult)),
          404: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request) => {
      const { channelId, subjectIds } = request.body;
      const states = await consentState.states(principalOf(request), channelId, subjectIds);
      return envelope(subjectIds.map((subjectId, i) => ({ subjectId, state: states[i] })));
    },
  );
}
