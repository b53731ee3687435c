import { type TSchema, Type } from '@sinclair/typebox';

/** Shared TypeBox pieces of the envelope and list conventions (contract §2). */

export const ApiDate = Type.String({ format: 'date-time', examples: ['2026-11-21T10:00:00Z'] });
export const NullableApiDate = Type.Union([ApiDate, Type.Null()]);

export const Meta = Type.Object({}, { additionalProperties: true });

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: Type.Object({}), error: Type.Null() });
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    meta: Type.Object({ nextCursor: Type.Union([Type.String(), Type.Null()]) }),
    error: Type.Null(),
  });
}

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
};

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String(),
    detail: Type.String(),
    instance: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details' },
);

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
