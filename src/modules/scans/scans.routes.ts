import { Type } from '@sinclair/typebox';
import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Created,
  Envelope,
  envelope,
  ListEnvelope,
  PageQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { absentBodyAsEmpty } from '../../platform/http/validation.ts';
import { ChannelParams } from '../channels/channels.schemas.ts';
import { CreateScanBody, ScanParams, ScanResource } from './scans.schemas.ts';
import type { ScansService } from './scans.service.ts';

/** Tracker scans: run one on a channel's pages, follow it, read its findings. */
export function scansRoutes(app: App, deps: { scans: ScansService; cursors: CursorCodec }) {
  const { scans, cursors } = deps;
  const tags = ['Scans'];

  app.post(
    '/v1/channels/:id/scans',
    {
      config: { auth: { scope: 'channels:manage' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'createScan',
        tags,
        summary:
          'Scan the channel’s pages in a browser before consent, after reject all and after accept all; it runs in the background',
        params: ChannelParams,
        body: CreateScanBody,
        response: {
          202: Created(Envelope(ScanResource)),
          404: Problem,
          409: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request, reply) => {
      const row = await scans.create(request.db, auditContextOf(request), request.params.id, request.body);
      reply.code(202).header('Location', `/v1/channels/${row.channelId}/scans/${row.id}`);
      return envelope(scans.toResource(row));
    },
  );

  app.get(
    '/v1/channels/:id/scans',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'listScans',
        tags,
        summary: 'Scans of the channel, newest first',
        params: ChannelParams,
        querystring: Type.Object(PageQuery),
        response: {
          200: ListEnvelope(ScanResource),
          400: Problem,
          404: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request) => {
      const channelId = request.params.id;
      return pagedList(cursors, {
        list: 'scans',
        filters: { channelId },
        query: request.query,
        fetch: (limit, after) => scans.list(request.db, auditContextOf(request), channelId, limit, after),
        present: scans.toResource,
      });
    },
  );

  app.get(
    '/v1/channels/:id/scans/:scanId',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'getScan',
        tags,
        summary: 'One scan: its status and, once succeeded, its findings (violations first)',
        params: ScanParams,
        response: { 200: Envelope(ScanResource), 404: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(
        scans.toResource(
          await scans.get(request.db, auditContextOf(request), request.params.id, request.params.scanId),
        ),
      ),
  );
}
