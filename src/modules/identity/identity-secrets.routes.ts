import { Type } from '@sinclair/typebox';
import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import { apiDate } from '../../platform/http/dates.ts';
import {
  authProblems,
  Envelope,
  envelope,
  ListEnvelope,
  NoQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { absentBodyAsEmpty } from '../../platform/http/validation.ts';
import { ChannelParams, EmptyBody } from '../channels/channels.schemas.ts';
import { CreatedIdentitySecret, IdentitySecret, IdentitySecretParams } from './identity.schemas.ts';
import type { IdentityService } from './identity.service.ts';
import type { IdentitySecretRow } from './identity.tables.ts';

const present = (row: IdentitySecretRow) => ({ id: row.id, createdAt: apiDate(row.createdAt) as string });

/**
 * A channel's identity secrets (docs/guides/signed-in-visitors.md): the keys its site's backend signs
 * visitors' identity tokens with. At most two active; the secret is in the create answer only.
 */
export function identitySecretsRoutes(app: App, deps: { identity: IdentityService }) {
  const { identity } = deps;
  const tags = ['Identity secrets'];
  app.addHook('onClose', async () => identity.close());

  app.post(
    '/v1/channels/:id/identity-secrets',
    {
      config: { auth: { scope: 'channels:manage' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'createIdentitySecret',
        tags,
        summary:
          'Create an identity secret for signing visitors’ identity tokens (HS256); the secret is shown in this answer only. At most two active: a third is 409 invalid_state',
        params: ChannelParams,
        body: EmptyBody,
        response: {
          201: Envelope(CreatedIdentitySecret),
          404: Problem,
          409: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request, reply) => {
      const { row, secret } = await identity.create(request.db, auditContextOf(request), request.params.id);
      reply.code(201);
      return envelope({ ...present(row), secret });
    },
  );

  app.get(
    '/v1/channels/:id/identity-secrets',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'listIdentitySecrets',
        tags,
        summary: 'The channel’s active identity secrets, newest first (two at most; never the secrets)',
        params: ChannelParams,
        querystring: NoQuery,
        response: { 200: ListEnvelope(IdentitySecret), 404: Problem, ...authProblems },
      },
    },
    async (request) => {
      const rows = await identity.list(request.db, auditContextOf(request), request.params.id);
      return { data: rows.map(present), meta: { nextCursor: null }, error: null };
    },
  );

  app.delete(
    '/v1/channels/:id/identity-secrets/:secretId',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'revokeIdentitySecret',
        tags,
        summary: 'Revoke an identity secret: tokens signed with it are refused from now on',
        params: IdentitySecretParams,
        response: {
          204: Type.Null({ description: 'Revoked' }),
          404: Problem,
          ...authProblems,
        },
      },
    },
    async (request, reply) => {
      const { id, secretId } = request.params;
      await identity.revoke(request.db, auditContextOf(request), id, secretId);
      return reply.code(204).send(null);
    },
  );
}
