import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from './errors.ts';

/**
 * Two validators: query strings and path params are text, so they are coerced ("20" → 20); bodies are
 * JSON and are not (a number where a string is required is an error). Neither strips unknown
 * members: schemas that forbid them report them (no silent mass assignment).
 */
function makeAjv(coerce: boolean) {
  const ajv = new Ajv.default({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

const coercing = makeAjv(true);
const strict = makeAjv(false);

/** The JSON Pointer of the first string (value or member name) holding a NUL character, if any. */
function nulPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '/' : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, member] of Object.entries(value)) {
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key.includes('\u0000')) return at;
    const found = nulPath(member, at);
    if (found) return found;
  }
  return null;
}

/**
 * PostgreSQL text cannot hold NUL (U+0000): a query with one fails with SQLSTATE 22021, which would
 * surface as a 500. JSON and percent-encoding can carry it, so every validated part rejects it here,
 * as a 422 at its path, before any handler sees it.
 */
export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strict : coercing).compile(schema as object);
  const checked = ((data: unknown, context?: object) => {
    const ok = context === undefined ? validate(data) : validate(data, context as never);
    checked.errors = validate.errors;
    if (!ok) return false;
    const path = nulPath(data);
    if (path === null) return true;
    checked.errors = [
      {
        instancePath: path === '/' ? '' : path,
        schemaPath: '#',
        keyword: 'nul',
        message: 'must not contain NUL characters',
        params: {},
      },
    ];
    return false;
  }) as typeof validate;
  // Fastify passes the parent (so Ajv can coerce a root value) only to functions with a schemaEnv.
  (checked as { schemaEnv?: unknown }).schemaEnv = validate.schemaEnv;
  return checked;
};

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Ajv issues as the contract's `errors: [{path, message}]` (JSON Pointer paths). */
export function fieldErrors(issues: AjvIssue[], httpPart: string | undefined): FieldError[] {
  return issues.map((issue) => {
    let path = issue.instancePath;
    if (issue.keyword === 'required') path += `/${issue.params.missingProperty}`;
    if (issue.keyword === 'additionalProperties') path += `/${issue.params.additionalProperty}`;
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'additionalProperties') message = 'is not a known field';
    if (issue.keyword === 'required') message = 'is required';
    const prefix = httpPart === 'querystring' ? 'query' : httpPart === 'params' ? 'path' : '';
    return { path: prefix ? `${prefix}:${path || '/'}` : path || '/', message };
  });
}

/**
 * preValidation hook for routes whose body is optional (`rotate`, `revoke`): Fastify validates a
 * missing body as `null`, which an object schema rejects, so a bare POST would be a 422. An absent
 * body is read as `{}` (and gets the schema's defaults); an explicit JSON `null` is still invalid.
 */
export async function absentBodyAsEmpty(request: { body: unknown }) {
  if (request.body === undefined) request.body = {};
}
