import type { FastifySchema, RouteOptions } from 'fastify';
import { Problem } from './schemas.ts';

/**
 * MAX_IDEMPOTENCY_KEY_LENGTH of platform/idempotency/idempotency-key.ts, which this file cannot
 * import (idempotency imports http: a cycle); test/platform/openapi-rules.test.ts holds the two
 * to the same answers.
 */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The Idempotency-Key values the service reads as a key (idempotency-key.ts): a quoted string of
 * 1-255 characters (printable ASCII, `"` and `\` escaped), or a bare value of 1-255 printable
 * characters that does not start with a quote (HTTP drops the spaces around a header value, so
 * one cannot start or end with a space), or a lone `"`.
 */
const IDEMPOTENCY_KEY_PATTERN = String.raw`^(?:"(?:[ !#-\[\]-~]|\\["\\]){1,${MAX_IDEMPOTENCY_KEY_LENGTH}}"|[!#-~](?:[ -~]{0,${MAX_IDEMPOTENCY_KEY_LENGTH - 2}}[!-~])?|")$`;

/**
 * What the platform layers add to every route's OpenAPI description, derived from the same route
 * options that install those layers, so that the document says what the service answers (the
 * integration suite checks every response it receives against it: test/helpers/openapi-validation.ts).
 * A route's own schema lists the answers of its handler; these are the answers of the layers
 * around it: authentication, rate limits, body parsing, validation, idempotency, and the database.
 */

const MUTATING = new Set(['POST', 'PATCH', 'DELETE']);

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown> };

/** `transform` of @fastify/swagger: security, platform problems and the Idempotency-Key header. */
export function describeRoute({
  schema,
  url,
  route,
}: {
  schema: FastifySchema;
  url: string;
  route: RouteOptions;
}): { schema: FastifySchema; url: string } {
  const routeSchema = schema as RouteSchema | undefined;
  if (!routeSchema || routeSchema.hide) return { schema, url };
  const config = (route.config ?? {}) as { auth?: unknown; idempotency?: unknown };
  const isPublic = config.auth === 'public';
  const methods = [route.method].flat();
  const idempotent =
    methods.some((m) => MUTATING.has(m)) &&
    config.idempotency !== false &&
    (Boolean(config.idempotency) || (config.auth !== undefined && !isPublic));

  // Every request can be malformed (a badly encoded path) or meet a failure on our side.
  const layers: Record<string, unknown> = { 400: Problem, 500: Problem, 503: Problem };
  if (config.auth !== undefined) layers[429] = Problem;
  if (config.auth !== undefined && !isPublic) Object.assign(layers, { 401: Problem, 403: Problem });
  if (routeSchema.params || routeSchema.querystring || routeSchema.body) layers[422] = Problem;
  if (routeSchema.body) Object.assign(layers, { 413: Problem, 415: Problem });
  if (idempotent) Object.assign(layers, { 409: Problem, 422: Problem });

  const response = Object.fromEntries(
    Object.entries({ ...layers, ...routeSchema.response }).map(([status, entry]) => [
      status,
      asSchema(entry),
    ]),
  );
  const described = keyPatternsKept({ ...routeSchema, response }) as RouteSchema;
  if (isPublic) described.security = [];
  if (idempotent) {
    described.headers = {
      type: 'object',
      properties: {
        'Idempotency-Key': {
          type: 'string',
          minLength: 1,
          // 255 characters, quoted, each escaped (the longest value the parser reads as a key).
          maxLength: 2 * MAX_IDEMPOTENCY_KEY_LENGTH + 2,
          pattern: IDEMPOTENCY_KEY_PATTERN,
          description: `Makes a retry safe: the first answer is replayed for 24 hours. 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, bare or as a quoted structured-field string ("…", with \\" and \\\\ escapes)`,
        },
      },
      ...(routeSchema.headers as object),
    };
  }
  return { schema: described, url };
}

/**
 * A map whose keys follow a pattern (TypeBox's `Type.Record` of a patterned key: purposes'
 * `translations` by language tag) is `patternProperties` with `additionalProperties: false`, which
 * @fastify/swagger rewrites to `additionalProperties` alone: the document would take any key the
 * service refuses. The same map said as `propertyNames` and `additionalProperties` (JSON Schema
 * 2020-12, OpenAPI 3.1) keeps the key's pattern. Copies what it changes: the route's own schemas
 * are the validator's.
 */
function keyPatternsKept(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    const items = schema.map(keyPatternsKept);
    return items.some((item, i) => item !== schema[i]) ? items : schema;
  }
  if (schema === null || typeof schema !== 'object') return schema;
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = keyPatternsKept(value);
    if (copy[key] !== value) changed = true;
  }
  const patterns = copy.patternProperties as Record<string, unknown> | undefined;
  const keys = patterns && typeof patterns === 'object' ? Object.keys(patterns) : [];
  if (keys.length === 1 && keys[0] !== '^.*$' && copy.additionalProperties === false) {
    const { patternProperties: _, ...rest } = copy;
    return { ...rest, propertyNames: { pattern: keys[0] }, additionalProperties: patterns![keys[0]] };
  }
  return changed ? copy : schema;
}

type ContentEntry = { description?: string; headers?: object; content?: Record<string, { schema: object }> };

/**
 * A JSON response given as `{ description, headers, content }` (Fastify's form for headers and media
 * types) in @fastify/swagger's plain form, whose nested named schemas it hoists into components.
 */
function asSchema(entry: unknown) {
  const { content, description, headers } = entry as ContentEntry;
  const media = Object.keys(content ?? {});
  if (!content || media.length !== 1 || media[0] !== 'application/json') return entry;
  return { ...content['application/json'].schema, description, headers };
}

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  description,
  schema,
});

/** Response headers described once, in components.headers. */
export const SHARED_HEADERS = {
  'X-Request-Id': { ...header('The request id; a valid client value is echoed'), required: true },
  'X-RateLimit-Limit': header('Requests allowed per minute', { type: 'string', pattern: '^[0-9]+$' }),
  'X-RateLimit-Remaining': header('Requests left in this window', { type: 'string', pattern: '^[0-9]+$' }),
  'X-RateLimit-Reset': header('Unix time (seconds) the window resets', {
    type: 'string',
    pattern: '^[0-9]+$',
  }),
  RateLimit: header('IETF draft: remaining requests and seconds to reset'),
  'RateLimit-Policy': header('IETF draft: the quota and its window'),
  'Retry-After': header('Seconds to wait before retrying', { type: 'string', pattern: '^[0-9]+$' }),
  'WWW-Authenticate': header('Bearer'),
  'Idempotent-Replayed': header('true when this is the stored answer to an earlier request', {
    type: 'string',
    enum: ['true'],
  }),
  'Original-Request-Id': header('The request id of the request whose answer is replayed'),
} as const;

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
];

type Schema = Record<string, unknown> & { title?: string };
type Operation = {
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema?: Schema }> }
  >;
};

/**
 * `transformObject` of @fastify/swagger: titled response schemas (Problem, ChannelEnvelope…)
 * become named components (@fastify/swagger names only the schemas nested in them), and every
 * response lists the headers the platform sets on it.
 */
export function completeDocument({ openapiObject }: { openapiObject: Record<string, any> }) {
  const schemas: Record<string, Schema> = openapiObject.components.schemas;
  openapiObject.components.headers = { ...SHARED_HEADERS, ...openapiObject.components.headers };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const pathItem of Object.values(openapiObject.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(pathItem)) {
      const idempotent = operation.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const media of Object.values(response.content ?? {})) {
          const title = media.schema?.title;
          if (!title || media.schema?.$ref) continue;
          schemas[title] ??= media.schema as Schema;
          media.schema = { $ref: `#/components/schemas/${title}` };
        }
        const names = ['X-Request-Id', ...RATE_LIMIT_HEADERS];
        // 409 idempotency_key_in_use tells the client when to try again, as 429 and 503 do.
        if (status === '429' || status === '503' || (idempotent && status === '409'))
          names.push('Retry-After');
        if (status === '401') names.push('WWW-Authenticate');
        if (idempotent) names.push('Idempotent-Replayed', 'Original-Request-Id');
        response.headers = { ...Object.fromEntries(names.map((n) => [n, ref(n)])), ...response.headers };
      }
    }
  }
  return openapiObject;
}
