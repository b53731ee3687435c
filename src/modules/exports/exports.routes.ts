import { Type } from '@sinclair/typebox';
import { auditContextOf, principalOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { endOfSecond, parseApiDate, startOfSecond } from '../../platform/http/dates.ts';
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
import { CONTENT_TYPES } from './export-formats.ts';
import { CreateExportBody, ExportFile, ExportResource } from './exports.schemas.ts';
import type { ExportsService } from './exports.service.ts';

function bodyDate(name: string, value: string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const date = parseApiDate(value);
  if (!date) throw validationFailed([{ path: `/${name}`, message: 'must be an RFC 3339 date-time' }]);
  return date;
}

/** Evidence exports (docs/decisions/exports.md): request, follow, download. */
export function exportsRoutes(app: App, deps: { exports: ExportsService; cursors: CursorCodec }) {
  const { exports, cursors } = deps;
  const tags = ['Exports'];

  app.post(
    '/v1/exports',
    {
      config: { auth: { scope: 'exports:create' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'createExport',
        tags,
        summary: 'Request an export of evidence; it is written in the background',
        body: CreateExportBody,
        response: { 202: Created(Envelope(ExportResource)), 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const from = bodyDate('from', body.from);
      const to = bodyDate('to', body.to);
      // Inclusive bounds at the second the API shows, as on GET /v1/evidence.
      const row = await exports.create(request.db, auditContextOf(request), {
        channelId: body.channelId ?? null,
        from: from && startOfSecond(from),
        to: to && endOfSecond(to),
        format: body.format ?? 'jsonl',
        includeProofs: body.includeProofs ?? false,
      });
      reply.code(202).header('Location', `/v1/exports/${row.id}`);
      return envelope(exports.toResource(row));
    },
  );

  app.get(
    '/v1/exports',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'listExports',
        tags,
        summary: 'Exports of the organization and environment, newest first',
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(ExportResource), 400: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      return pagedList(cursors, {
        list: 'exports',
        query: request.query,
        fetch: (limit, after) => exports.list(request.db, principalOf(request), limit, after),
        present: exports.toResource,
      });
    },
  );

  app.get(
    '/v1/exports/:id',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'getExport',
        tags,
        summary: 'One export: its status and, once succeeded, the size and SHA-256 of its file',
        params: IdParams,
        response: { 200: Envelope(ExportResource), 404: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(exports.toResource(await exports.get(request.db, principalOf(request), request.params.id))),
  );

  app.get(
    '/v1/exports/:id/file',
    {
      config: { auth: { scope: 'exports:create' } },
      schema: {
        operationId: 'downloadExportFile',
        tags,
        summary:
          'The export file (application/x-ndjson or text/csv), streamed; Digest and Repr-Digest carry its SHA-256',
        params: IdParams,
        response: { 200: ExportFile, 404: Problem, 409: Problem, 410: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      // HEAD shows the headers without counting as a download.
      const isHead = request.method === 'HEAD';
      const file = await exports.openFile(request.db, auditContextOf(request), request.params.id, {
        audit: !isHead,
      });
      const { row } = file;
      const digest = Buffer.from(row.sha256 as string, 'hex').toString('base64');
      reply
        .header('Content-Type', CONTENT_TYPES[row.format])
        .header('Content-Disposition', `attachment; filename="${row.id}.${row.format}"`)
        .header('Content-Length', String(file.size))
        .header('ETag', `"${row.sha256}"`)
        .header('Digest', `sha-256=${digest}`)
        .header('Repr-Digest', `sha-256=:${digest}:`)
        .header('Cache-Control', 'private, no-store')
        .header('X-Content-Type-Options', 'nosniff');
      // A stream bypasses the response serializer (the schema above declares only the problems).
      return reply.send((isHead ? '' : file.open()) as never);
    },
  );
}
