import { Type } from '@sinclair/typebox';
import { auditContextOf, principalOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { parseApiDate } from '../../platform/http/dates.ts';
import { validationFailed } from '../../platform/http/errors.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Created,
  Envelope,
  envelope,
  IdParams,
  ListEnvelope,
  PageQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { absentBodyAsEmpty } from '../../platform/http/validation.ts';
import { ApiKey, ApiKeyWithSecret, CreateApiKeyBody, RotateApiKeyBody } from './api-keys.schemas.ts';
import type { ApiKeysService } from './api-keys.service.ts';

/** A body whose only faults are scope names outside the catalogue (`/scopes/<n>` enum failures). */
function onlyUnknownScopes(error: Error & { validation?: Array<{ keyword: string; instancePath: string }> }) {
  const issues = error.validation ?? [];
  return (
    issues.length > 0 && issues.every((i) => i.keyword === 'enum' && /^\/scopes\/\d+$/.test(i.instancePath))
  );
}

export function apiKeysRoutes(app: App, deps: { apiKeys: ApiKeysService; cursors: CursorCodec }) {
  const { apiKeys, cursors } = deps;

  const present = apiKeys.toResource;

  app.get(
    '/v1/api-keys',
    {
      config: { auth: { scope: 'api_keys:read' } },
      schema: {
        operationId: 'listApiKeys',
        tags: ['API keys'],
        summary: 'List API keys (never their secrets)',
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(ApiKey), 400: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      return pagedList(cursors, {
        list: 'api-keys',
        query: request.query,
        fetch: (limit, after) => apiKeys.list(request.db, auditContextOf(request), limit, after),
        present,
      });
    },
  );

  app.post(
    '/v1/api-keys',
    {
      config: { auth: { scope: 'api_keys:manage' } },
      // Names outside the scope catalogue are the service's 422 invalid_scopes (listing each), not
      // the schema's validation_failed: the handler sees the validation's outcome and decides.
      attachValidation: true,
      schema: {
        operationId: 'createApiKey',
        tags: ['API keys'],
        summary: 'Issue an API key for the calling key’s member; the secret is in this response only',
        body: CreateApiKeyBody,
        response: { 201: Created(Envelope(ApiKeyWithSecret)), 422: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      if (request.validationError && !onlyUnknownScopes(request.validationError)) {
        throw request.validationError;
      }
      const principal = principalOf(request);
      const { name, scopes, expiresAt } = request.body;
      const expiry = expiresAt ? parseApiDate(expiresAt) : null;
      if (expiresAt && !expiry)
        throw validationFailed([{ path: '/expiresAt', message: 'must be an RFC 3339 date-time' }]);
      const issued = await apiKeys.issue(
        request.db,
        auditContextOf(request),
        { organizationId: principal.organizationId, memberId: principal.memberId, role: principal.role },
        { name, scopes, expiresAt: expiry },
        principal.scopes,
      );
      reply.code(201).header('Location', `/v1/api-keys/${issued.key.id}`);
      return envelope({ ...present(issued.key), secret: issued.secret });
    },
  );

  app.get(
    '/v1/api-keys/:id',
    {
      config: { auth: { scope: 'api_keys:read' } },
      schema: {
        operationId: 'getApiKey',
        tags: ['API keys'],
        summary: 'One API key (never its secret)',
        params: IdParams,
        response: { 200: Envelope(ApiKey), 404: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(present(await apiKeys.get(request.db, auditContextOf(request), request.params.id))),
  );

  app.post(
    '/v1/api-keys/:id/rotate',
    {
      config: { auth: { scope: 'api_keys:manage' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'rotateApiKey',
        tags: ['API keys'],
        summary: 'Issue a replacement key with the same scopes; the old one works for graceSeconds more',
        params: IdParams,
        body: RotateApiKeyBody,
        response: {
          201: Created(Envelope(ApiKeyWithSecret)),
          404: Problem,
          409: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const graceSeconds = request.body.graceSeconds ?? 86_400;
      const issued = await apiKeys.rotate(
        request.db,
        auditContextOf(request),
        request.params.id,
        graceSeconds,
        principal,
      );
      reply.code(201).header('Location', `/v1/api-keys/${issued.key.id}`);
      return envelope({ ...present(issued.key), secret: issued.secret });
    },
  );

  app.post(
    '/v1/api-keys/:id/revoke',
    {
      config: { auth: { scope: 'api_keys:manage' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'revokeApiKey',
        tags: ['API keys'],
        summary: 'Revoke a key: it is rejected from now on',
        params: IdParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(ApiKey), 404: Problem, 409: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(
        present(
          await apiKeys.revoke(request.db, auditContextOf(request), request.params.id, principalOf(request)),
        ),
      ),
  );
}
