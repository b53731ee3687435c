import { Type } from '@sinclair/typebox';
import { principalOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { apiDate, endOfSecond, queryDate, startOfSecond } from '../../platform/http/dates.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  ApiDate,
  authProblems,
  DateTimeInput,
  ListEnvelope,
  PageQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import type { AuditRow } from './audit.repo.ts';
import type { AuditService } from './audit.service.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const AuditLogEntry = Type.Object(
  {
    id: Type.String(),
    action: Type.String({ examples: ['api_key.revoked'] }),
    actor: Type.Object({
      type: Type.Union([Type.Literal('api_key'), Type.Literal('member'), Type.Literal('system')]),
      id: Nullable(Type.String()),
    }),
    target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()]),
    requestId: Nullable(Type.String()),
    ipPrefix: Nullable(Type.String()),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    occurredAt: ApiDate,
    count: Type.Integer({
      minimum: 1,
      description:
        'How many events the entry stands for: 1, except for auth.denied, recorded once per actor, route and minute (occurredAt is the first)',
    }),
  },
  { $id: 'AuditLogEntry' },
);

const FilterString = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));

const AuditQuery = Type.Object({
  ...PageQuery,
  action: FilterString,
  actorId: FilterString,
  targetId: FilterString,
  from: Type.Optional(DateTimeInput('Entries at or after (RFC 3339)')),
  to: Type.Optional(DateTimeInput('Entries at or before (RFC 3339)')),
});

function present(row: AuditRow) {
  return {
    id: row.id,
    action: row.action,
    actor: { type: row.actorType, id: row.actorId },
    target: row.targetType && row.targetId ? { type: row.targetType, id: row.targetId } : null,
    requestId: row.requestId,
    ipPrefix: row.ipPrefix,
    environment: row.environment,
    occurredAt: apiDate(row.occurredAt),
    count: row.count,
  };
}

const bound = (date: Date | undefined, toBound: (d: Date) => Date) => (date ? toBound(date) : undefined);

export function auditRoutes(app: App, deps: { audit: AuditService; cursors: CursorCodec }) {
  const { audit, cursors } = deps;

  app.get(
    '/v1/audit-logs',
    {
      config: { auth: { scope: 'audit:read:limited' } },
      schema: {
        operationId: 'listAuditLogs',
        tags: ['Audit logs'],
        summary: 'Audit log of the organization and environment (no payloads, secrets or subject data)',
        querystring: AuditQuery,
        response: { 200: ListEnvelope(AuditLogEntry), 400: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { limit, cursor, ...rawFilters } = request.query;
      const filters = {
        action: rawFilters.action,
        actorId: rawFilters.actorId,
        targetId: rawFilters.targetId,
        from: bound(queryDate('from', rawFilters.from), startOfSecond),
        to: bound(queryDate('to', rawFilters.to), endOfSecond),
      };
      return pagedList(cursors, {
        list: 'audit-logs',
        filters: rawFilters,
        query: { limit, cursor },
        fetch: (limit, after) => audit.list(request.db, principal, filters, limit, after),
        present,
        position: (r) => ({ t: r.occurredAt.getTime(), id: r.id }),
      });
    },
  );
}
