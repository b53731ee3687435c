import { type Static, Type } from '@sinclair/typebox';
import { principalOf } from '../../platform/auth/auth.hooks.ts';
import { notFound, validationFailed } from '../../platform/http/errors.ts';
import { authProblems, Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import {
  ConsentState,
  ConsentStateLookupBody,
  ConsentStateLookupResult,
  ConsentStateQuery,
} from './consent-state.schemas.ts';
import type { EvidenceService } from './evidence.service.ts';

type LookupResult = Static<typeof ConsentStateLookupResult>;

/**
 * The one subject selector sent, devices' (`subject…`) or accounts' (`account…`), with its kind:
 * neither or both is a 422 naming the two (`prefix` places them: 'query:/' or '/' for a body).
 */
function exactlyOne<T>(prefix: string, given: Record<string, T | undefined>): ['device' | 'account', T] {
  const sent = Object.entries(given).filter(([, value]) => value !== undefined);
  if (sent.length !== 1) {
    const names = Object.keys(given);
    throw validationFailed(
      names.map((name) => ({
        path: `${prefix}${name}`,
        message: `send exactly one of ${names.join(' and ')}`,
      })),
    );
  }
  const [name, value] = sent[0];
  return [name.startsWith('account') ? 'account' : 'device', value as T];
}

/**
 * "May I use this person's data for this purpose now?" (docs/guides/check-consent.md): the newest decision
 * per purpose, one indexed read. Raw subject ids (a device's subjectId, or a signed-in visitor's
 * accountId: docs/guides/signed-in-visitors.md) come in (the query's are redacted from logs) and are
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
      const { channelId, subjectId, accountId } = request.query;
      const [kind, id] = exactlyOne('query:/', { subjectId, accountId });
      const [state] = await consentState.states(principalOf(request), channelId, [id], kind);
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
      const { channelId, subjectIds, accountIds } = request.body;
      const [kind, ids] = exactlyOne('/', { subjectIds, accountIds });
      const states = await consentState.states(principalOf(request), channelId, ids, kind);
      const name = kind === 'account' ? 'accountId' : 'subjectId';
      return envelope(ids.map((id, i) => ({ [name]: id, state: states[i] }) as LookupResult));
    },
  );
}
