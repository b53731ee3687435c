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
    // Every failure is reported (the problem's errors[] is cut at MAX_FIELD_ERRORS), not only the first.
    allErrors: true,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

const coercing = makeAjv(true);
const strict = makeAjv(false);

/** At most this many entries in a problem's `errors` (a huge bad body must not make a huge answer). */
export const MAX_FIELD_ERRORS = 20;

const DECIMAL_INTEGER = /^-?[0-9]{1,15}$/;

/**
 * Names of the integer members of a query or params schema. Ajv's coercion reads "0x10", "1e1",
 * " 10" and "+10" as numbers (it compares with `==`); the API takes only decimal digits there.
 */
function integerMembers(schema: { properties?: Record<string, { type?: unknown }> }): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, member]) => member.type === 'integer')
    .map(([name]) => name);
}

type Issue = { instancePath: string; schemaPath: string; keyword: string; message: string; params: object };

function nonDecimalIntegers(data: unknown, names: string[]): Issue[] {
  if (names.length === 0 || data === null || typeof data !== 'object') return [];
  const issues: Issue[] = [];
  for (const name of names) {
    const raw = (data as Record<string, unknown>)[name];
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.some((v) => typeof v === 'string' && !DECIMAL_INTEGER.test(v))) {
      issues.push({
        instancePath: `/${name}`,
        schemaPath: '#',
        keyword: 'type',
        message: 'must be a decimal integer',
        params: {},
      });
    }
  }
  return issues;
}

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
  const integers = httpPart === 'body' ? [] : integerMembers(schema as never);
  const checked = ((data: unknown, context?: object) => {
    // Read before Ajv coerces the strings in place.
    const notDecimal = nonDecimalIntegers(data, integers);
    const ok = context === undefined ? validate(data) : validate(data, context as never);
    const failed = notDecimal.length > 0 || !ok;
    if (failed) {
      const others = (validate.errors ?? []).filter(
        (e) => !notDecimal.some((n) => n.instancePath === e.instancePath),
      );
      checked.errors = [...notDecimal, ...others].slice(0, MAX_FIELD_ERRORS) as typeof validate.errors;
      return false;
    }
    checked.errors = null;
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
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * With allErrors, a value matching no branch of a union gets one issue per branch plus the anyOf
 * itself. Where the value reached inside a branch (an object of a nullable object, say `tcf`, whose
 * members are wrong), those inner issues are the ones that say what to fix: they are kept, at
 * their members' paths, and the union's own issue and the other branches' type mismatches go.
 * Otherwise (a value of no allowed type at all) the branch issues go, and the value is listed once.
 */
function withoutBranchIssues(issues: AjvIssue[]): AjvIssue[] {
  const unions = issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  if (unions.length === 0) return issues;
  const under = (u: AjvIssue, i: AjvIssue) =>
    u !== i &&
    !!u.schemaPath &&
    i.instancePath.startsWith(u.instancePath) &&
    !!i.schemaPath?.startsWith(`${u.schemaPath}/`);
  /** An issue about the value's members rather than its type: the value matched a branch's type. */
  const inner = (u: AjvIssue, i: AjvIssue) =>
    i.instancePath.length > u.instancePath.length ||
    i.keyword === 'required' ||
    i.keyword === 'additionalProperties';
  const reached = new Set(unions.filter((u) => issues.some((i) => under(u, i) && inner(u, i))));
  return issues.filter((i) => {
    if (reached.has(i)) return false;
    return !unions.some((u) => under(u, i) && !(reached.has(u) && inner(u, i)));
  });
}

/** Ajv issues as the problem's `errors: [{path, message}]` (JSON Pointer paths), at most MAX_FIELD_ERRORS. */
export function fieldErrors(issues: AjvIssue[], httpPart: string | undefined): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of withoutBranchIssues(issues)) {
    let path = issue.instancePath;
    if (issue.keyword === 'required') path += `/${issue.params.missingProperty}`;
    if (issue.keyword === 'additionalProperties') path += `/${issue.params.additionalProperty}`;
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'additionalProperties') message = 'is not a known field';
    if (issue.keyword === 'required') message = 'is required';
    if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf') message = 'matches none of the allowed forms';
    const prefix = httpPart === 'querystring' ? 'query' : httpPart === 'params' ? 'path' : '';
    const error = { path: prefix ? `${prefix}:${path || '/'}` : path || '/', message };
    const key = `${error.path}\u0000${error.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push(error);
    if (errors.length === MAX_FIELD_ERRORS) break;
  }
  return errors;
}

/**
 * preValidation hook for routes whose body is optional (`rotate`, `revoke`): Fastify validates a
 * missing body as `null`, which an object schema rejects, so a bare POST would be a 422. An absent
 * body is read as `{}` (and gets the schema's defaults); an explicit JSON `null` is still invalid.
 */
export async function absentBodyAsEmpty(request: { body: unknown }) {
  if (request.body === undefined) request.body = {};
}
