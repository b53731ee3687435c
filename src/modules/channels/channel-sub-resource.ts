import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import type { DbScope } from '../../platform/db/store.ts';
import type { CursorCodec, CursorPosition } from '../../platform/http/cursor.ts';
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
import type { AuditContext } from '../audit/audit.service.ts';
import { ChannelParams, EmptyBody } from './channels.schemas.ts';
import type { ChannelsService } from './channels.service.ts';

/** What the channel routes and the routes of its parts are built from. */
export interface ChannelRoutesDeps {
  channels: ChannelsService;
  cursors: CursorCodec;
}

const READ = { auth: { scope: 'channels:read' } } as const;
const MANAGE = { auth: { scope: 'channels:manage' } } as const;

/** A problem response for each status (the auth problems are added to every route). */
function problems(statuses: readonly number[]) {
  return Object.fromEntries(statuses.map((status) => [status, Problem])) as Record<number, typeof Problem>;
}

interface Operation {
  operationId: string;
  summary: string;
}

/** What a channel's part is: its tags, path segment, item parameter and item schema. */
interface SubResourceSpec<Row, Item extends TSchema> {
  tags: string[];
  /** The collection's path segment, also the list name its cursors are bound to. */
  name: string;
  /** The name of the item's path parameter. */
  itemParam: string;
  schema: Item;
  present: (row: Row) => Static<Item>;
}

/** What the collection routes and the item routes share, worked out once from the spec. */
interface SubResourceParts<Row, Item extends TSchema> {
  app: App;
  cursors: CursorCodec;
  spec: SubResourceSpec<Row, Item>;
  collection: string;
  item: string;
  one: TSchema;
  answer: (row: Row) => { data: Static<Item>; meta: Record<string, never>; error: null };
  describe: (op: Operation) => { operationId: string; tags: string[]; summary: string };
}

/**
 * The routes of one kind of part of a channel (purposes, technologies, origins, config versions):
 * a paged collection at `/v1/channels/:id/<name>` and its items at `…/<name>/:<itemParam>`.
 * Reads need channels:read and changes channels:manage; every answer is the item (`schema`) as
 * `present` makes it from a row, in the envelope. A route is registered when its method is called,
 * so the calls' order is the order of the OpenAPI document.
 */
export function channelSubResource<Row, Item extends TSchema>(
  app: App,
  cursors: CursorCodec,
  spec: SubResourceSpec<Row, Item>,
) {
  const { tags, schema, present } = spec;
  const collection = `/v1/channels/:id/${spec.name}`;
  const item = `${collection}/:${spec.itemParam}`;
  // Typed loosely so the handlers type-check for any item; `present` is checked against `schema`.
  const one: TSchema = Envelope(schema);
  const answer = (row: Row) => envelope(present(row));
  const describe = ({ operationId, summary }: Operation) => ({ operationId, tags, summary });
  const parts = { app, cursors, spec, collection, item, one, answer, describe };
  return { ...collectionRoutes(parts), ...itemRoutes(parts) };
}

/** The routes on the collection: list and create. */
function collectionRoutes<Row, Item extends TSchema>(parts: SubResourceParts<Row, Item>) {
  const { app, cursors, spec, collection, one, answer, describe } = parts;
  const { schema, present } = spec;

  return {
    /** GET the collection, newest first (or by `position`), keyset-paged. */
    list(
      op: Operation & {
        fetch: (
          db: DbScope,
          context: AuditContext,
          channelId: string,
          limit: number,
          after: CursorPosition | null,
        ) => Promise<Row[]>;
        /** Where a page ending at this row ends; by default its creation time and id. */
        position?: (row: Row) => CursorPosition;
      },
    ) {
      app.get(
        collection,
        {
          config: READ,
          schema: {
            ...describe(op),
            params: ChannelParams,
            querystring: Type.Object(PageQuery),
            response: { 200: ListEnvelope(schema), ...problems([400, 404, 422]), ...authProblems },
          },
        },
        async (request) => {
          const channelId = request.params.id;
          return pagedList(cursors, {
            list: spec.name,
            filters: { channelId },
            query: request.query,
            fetch: (limit, after) => op.fetch(request.db, auditContextOf(request), channelId, limit, after),
            present,
            position: op.position,
          });
        },
      );
    },

    /** POST a new item to the collection: 201, with a Location header when `location` is given. */
    create<Body extends TSchema>(
      op: Operation & {
        body: Body;
        run: (db: DbScope, context: AuditContext, channelId: string, body: Static<Body>) => Promise<Row>;
        location?: (row: Row) => string;
      },
    ) {
      const { location } = op;
      app.post(
        collection,
        {
          config: MANAGE,
          schema: {
            ...describe(op),
            params: ChannelParams,
            body: op.body,
            response: {
              201: location ? Created(one) : one,
              ...problems([404, 409, 422]),
              ...authProblems,
            },
          },
        },
        async (request, reply) => {
          const row = await op.run(
            request.db,
            auditContextOf(request),
            request.params.id,
            request.body as Static<Body>,
          );
          reply.code(201);
          if (location) reply.header('Location', location(row));
          return answer(row);
        },
      );
    },
  };
}

/** The routes on one item: get, update, archive and delete. */
function itemRoutes<Row, Item extends TSchema>(parts: SubResourceParts<Row, Item>) {
  const { app, item, one, answer, describe } = parts;

  return {
    /** GET one item. */
    get<Params extends TObject>(
      op: Operation & {
        params: Params;
        /** The problem statuses besides the auth ones (404 by default). */
        problems?: readonly number[];
        run: (db: DbScope, context: AuditContext, params: Static<Params>) => Promise<Row>;
      },
    ) {
      app.get(
        item,
        {
          config: READ,
          schema: {
            ...describe(op),
            params: op.params,
            response: { 200: one, ...problems(op.problems ?? [404]), ...authProblems },
          },
        },
        async (request) =>
          answer(await op.run(request.db, auditContextOf(request), request.params as Static<Params>)),
      );
    },

    /** PATCH one item. */
    update<Params extends TObject, Body extends TSchema>(
      op: Operation & {
        params: Params;
        body: Body;
        run: (db: DbScope, context: AuditContext, params: Static<Params>, body: Static<Body>) => Promise<Row>;
      },
    ) {
      app.patch(
        item,
        {
          config: MANAGE,
          schema: {
            ...describe(op),
            params: op.params,
            body: op.body,
            response: { 200: one, ...problems([404, 409, 422]), ...authProblems },
          },
        },
        async (request) =>
          answer(
            await op.run(
              request.db,
              auditContextOf(request),
              request.params as Static<Params>,
              request.body as Static<Body>,
            ),
          ),
      );
    },

    /** POST `…/archive` on one item, with no body (or an empty object). */
    archive<Params extends TObject>(
      op: Operation & {
        params: Params;
        run: (db: DbScope, context: AuditContext, params: Static<Params>) => Promise<Row>;
      },
    ) {
      app.post(
        `${item}/archive`,
        {
          config: MANAGE,
          preValidation: absentBodyAsEmpty,
          schema: {
            ...describe(op),
            params: op.params,
            body: EmptyBody,
            response: { 200: one, ...problems([404, 409, 422]), ...authProblems },
          },
        },
        async (request) =>
          answer(await op.run(request.db, auditContextOf(request), request.params as Static<Params>)),
      );
    },

    /** DELETE one item: 204. */
    delete<Params extends TObject>(
      op: Operation & {
        params: Params;
        run: (db: DbScope, context: AuditContext, params: Static<Params>) => Promise<void>;
      },
    ) {
      app.delete(
        item,
        {
          config: MANAGE,
          schema: {
            ...describe(op),
            params: op.params,
            response: { 204: Type.Null(), ...problems([404, 409]), ...authProblems },
          },
        },
        async (request, reply) => {
          await op.run(request.db, auditContextOf(request), request.params as Static<Params>);
          return reply.code(204).send(null);
        },
      );
    },
  };
}
