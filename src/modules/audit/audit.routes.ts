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
import type { NamedAuditRow } from './audit-names.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
/** A member only `expand=names` adds. */
const OptionalNullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Optional(Nullable(t));

const AuditLogEntry = Type.Object(
  {
    id: Type.String(),
    action: Type.String({ examples: ['api_key.revoked'] }),
    actor: Type.Object({
      type: Type.Union([Type.Literal('api_key'), Type.Literal('member'), Type.Literal('system')]),
      id: Nullable(Type.String()),
    }),
    target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()]),
    actorName: OptionalNullable(
      Type.String({
        description:
          'What the actor is known as: a member’s email, an API key’s name; null for the system, or an actor deleted since',
      }),
    ),
    actorEmail: OptionalNullable(
      Type.String({
        description:
          'The email of the person answerable: a member actor’s own, an API key actor’s member’s; null for the system',
      }),
    ),
    targetName: OptionalNullable(
      Type.String({
        description:
          'What the target is known as: a channel’s or an API key’s name, a member’s email, a webhook destination’s URL; null for other kinds (a route, an export) or a target deleted since',
      }),
    ),
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
  expand: Type.Optional(
    Type.Literal('names', {
      description:
        'Adds actorName, actorEmail and targetName to each entry (what the console shows beside the ids). Left out, entries hold ids only, as the log stores them',
    }),
  ),
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

/** An entry with `expand=names`: the names after the ids they stand beside. */
function presentNamed(row: NamedAuditRow) {
  return {
    ...present(row),
    actorName: row.actorName,
    actorEmail: row.actorEmail,
    targetName: row.targetName,
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
      const { limit, cursor, expand, ...rawFilters } = request.query;
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
        // The names change what an entry shows, not which entries: a cursor serves either way.
        fetch: (limit, after) =>
          expand === 'names'
            ? audit.listNamed(request.db, principal, filters, limit, after)
            : audit.list(request.db, principal, filters, limit, after),
        present: expand === 'names' ? (row) => presentNamed(row as NamedAuditRow) : present,
        position: (r) => ({ t: r.occurredAt.getTime(), id: r.id }),
      });
    },
  );
}
