import { type TSchema, Type } from '@sinclair/typebox';

/** Shared TypeBox pieces of the envelope and list conventions (README "API conventions"). */

export const ApiDate = Type.String({ format: 'date-time', examples: ['2026-11-21T10:00:00Z'] });
export const NullableApiDate = Type.Union([ApiDate, Type.Null()]);

/**
 * A date-time a client sends (a filter's `from`, an `expiresAt`): RFC 3339 with an offset, as the
 * validator's `date-time` format reads it (validation.ts: parseApiDate's rule, so a date the
 * service would refuse is refused as the document says).
 */
export const DateTimeInput = (description?: string) =>
  Type.String({
    format: 'date-time',
    maxLength: 64,
    examples: ['2026-11-21T10:00:00Z'],
    ...(description ? { description } : {}),
  });

export const Meta = Type.Object({}, { additionalProperties: true });

/**
 * A named item gives its envelope a name too (`ChannelEnvelope`): the OpenAPI document makes a
 * titled response schema a named component (openapi.ts), which generated clients use.
 */
const nameAfter = (item: TSchema, suffix: string) =>
  typeof item.$id === 'string' ? { title: `${item.$id}${suffix}` } : {};

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: Type.Object({}), error: Type.Null() }, nameAfter(data, 'Envelope'));
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object(
    {
      data: Type.Array(item),
      meta: Type.Object({ nextCursor: Type.Union([Type.String(), Type.Null()]) }),
      error: Type.Null(),
    },
    nameAfter(item, 'List'),
  );
}

/**
 * A 201 or 202 whose Location header is the path of the new resource (or of the accepted work).
 * `headers` beside the schema, not Fastify's `content` form: serializers ignore it, and the
 * idempotency layer serializes by status alone (reply.serialize), which the `content` form breaks.
 */
export function Created<T extends TSchema>(schema: T) {
  return {
    ...schema,
    description: 'Created: Location is the path of the new resource',
    headers: {
      Location: Type.String({ description: 'Path of the new resource', examples: ['/v1/channels/ch_…'] }),
    },
  } as T;
}

/** A 304 to a conditional GET (If-None-Match): no body. */
export const NotModified = Type.Null({ description: 'Not modified: the ETag sent still matches' });

/**
 * The query of a route that takes no parameters, declared all the same: a route with a query schema
 * refuses the parameters it does not name (validation.ts), so a list without paging still says 422
 * to `?chanelId=` rather than answer as if it had not been sent.
 */
export const NoQuery = Type.Object({});

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
};

export const ProblemDetails = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String(),
    detail: Type.String(),
    instance: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String(),
          message: Type.String(),
          code: Type.Optional(
            Type.String({
              description:
                'The rule the value breaks, where a route names its rules (see its 422 description)',
            }),
          ),
        }),
        { description: 'validation_failed: each failure with the JSON Pointer of its value' },
      ),
    ),
    invalidScopes: Type.Optional(
      Type.Array(Type.String(), { description: 'invalid_scopes: the requested names outside the catalogue' }),
    ),
  },
  { title: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

/**
 * A problem response as a route schema: every error is served as application/problem+json
 * (problem.ts, with its own serializer), so that is the media type the OpenAPI document names.
 */
export const Problem = {
  description: 'RFC 9457 problem details (application/problem+json)',
  content: { 'application/problem+json': { schema: ProblemDetails } },
};

/**
 * An object schema's option: exactly one of these members. Said as JSON Schema's `oneOf` of
 * branches that each require one member, which the document shows and the validator enforces; the
 * validator names each member in its 422 ("send exactly one of a and b", validation.ts).
 */
export const exactlyOneOf = (...names: string[]) => ({ oneOf: names.map((name) => ({ required: [name] })) });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Problem responses every authenticated route can give, for the OpenAPI document. */
export const authProblems = {
  401: Problem,
  403: Problem,
  429: Problem,
};

export function envelope<T, M extends Record<string, unknown> = Record<string, never>>(data: T, meta?: M) {
  return { data, meta: (meta ?? {}) as M, error: null };
}

/** A page of rows fetched with limit + 1, turned into the list envelope. */
export function page<Row, Item>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
  cursorOf: (row: Row) => string,
) {
  const hasMore = rows.length > limit;
  const shown = hasMore ? rows.slice(0, limit) : rows;
  return envelope(shown.map(toItem), { nextCursor: hasMore ? cursorOf(shown[shown.length - 1]) : null });
}
