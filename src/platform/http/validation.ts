import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { parseApiDate } from './dates.ts';
import { type AjvIssue, MAX_FIELD_ERRORS, pointerToken } from './validation-issues.ts';

export { fieldErrors, MAX_FIELD_ERRORS, validationDetail } from './validation-issues.ts';

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
  // `format: "date-time"` is what the service reads as one (dates.ts), not ajv-formats' looser
  // reading (a space for the T, year 0000), so the document's format is the one enforced.
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => parseApiDate(value) !== null });
  return ajv;
}

const coercing = makeAjv(true);
const strict = makeAjv(false);

type MemberSchema = { type?: unknown; minimum?: number; maximum?: number };
type PartSchema = {
  type?: unknown;
  properties?: Record<string, MemberSchema>;
  additionalProperties?: unknown;
  oneOf?: unknown[];
};

/**
 * A query schema refuses the parameters it does not name, unless it says `additionalProperties:
 * true` itself: a mistyped filter (`actorid=` for `actorId=`) must be a 422, not a list of
 * everything. One rule for every route, so a new list cannot forget it.
 */
function closedQuery(schema: PartSchema): PartSchema {
  if (schema.type !== 'object' || schema.additionalProperties !== undefined) return schema;
  return { ...schema, additionalProperties: false };
}

const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * The integer members of a query or params schema, with their bounds. Ajv's coercion reads
 * "0x10", "1e1", " 10" and "+10" as numbers (it compares with `==`); the API takes only decimal
 * digits there. Digits past 2^53 are still a decimal integer, only out of range: they get the
 * range's message, as 101 does for a limit of at most 100, not a claim that they are no integer.
 */
function integerMembers(schema: PartSchema): Array<[string, MemberSchema]> {
  return Object.entries(schema.properties ?? {}).filter(([, member]) => member.type === 'integer');
}

function integerIssue(name: string, value: string, member: MemberSchema): AjvIssue | null {
  let message: string | null = null;
  if (!DECIMAL_INTEGER.test(value)) message = 'must be a decimal integer';
  else if (!Number.isSafeInteger(Number(value))) {
    const negative = value.startsWith('-');
    const bound = negative ? member.minimum : member.maximum;
    message =
      bound === undefined
        ? `must be ${negative ? '>=' : '<='} ${negative ? '-' : ''}${Number.MAX_SAFE_INTEGER}`
        : `must be ${negative ? '>=' : '<='} ${bound}`;
  }
  if (message === null) return null;
  return {
    instancePath: `/${pointerToken(name)}`,
    schemaPath: '#',
    keyword: 'decimalInteger',
    message,
    params: {},
  };
}

function integerIssues(data: unknown, members: Array<[string, MemberSchema]>): AjvIssue[] {
  if (members.length === 0 || data === null || typeof data !== 'object') return [];
  const issues: AjvIssue[] = [];
  for (const [name, member] of members) {
    const raw = (data as Record<string, unknown>)[name];
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const issue = typeof value === 'string' ? integerIssue(name, value, member) : null;
      if (issue) {
        issues.push(issue);
        break;
      }
    }
  }
  return issues;
}

/**
 * The members of a root `oneOf` whose every branch only requires one member (`exactlyOneOf` in
 * schemas.ts): "send exactly one of these". Its failure is told as that, at each member, rather
 * than as "is required" twice or as a union nothing matched.
 */
function exactlyOneGroup(schema: PartSchema): string[] | null {
  const branches = schema.oneOf;
  if (!Array.isArray(branches) || branches.length < 2) return null;
  const names: string[] = [];
  for (const branch of branches as Array<Record<string, unknown>>) {
    const required = branch.required;
    if (Object.keys(branch).length !== 1 || !Array.isArray(required) || required.length !== 1) return null;
    names.push(String(required[0]));
  }
  return names;
}

function exactlyOneIssues(issues: AjvIssue[], names: string[] | null): AjvIssue[] {
  if (!names || !issues.some((i) => i.schemaPath === '#/oneOf')) return issues;
  const message = `send exactly one of ${names.join(' and ')}`;
  return [
    ...names.map((name) => ({
      instancePath: `/${pointerToken(name)}`,
      schemaPath: '#/oneOf',
      keyword: 'exactlyOne',
      message,
      params: {},
    })),
    ...issues.filter((i) => !i.schemaPath?.startsWith('#/oneOf')),
  ];
}

/** Unknown query parameters, each named, with the ones the route takes (for the problem's detail). */
function unknownParameterIssues(issues: AjvIssue[], accepted: string[]): AjvIssue[] {
  return issues.map((issue) => {
    if (issue.keyword !== 'additionalProperties' || issue.instancePath !== '') return issue;
    const name = String(issue.params.additionalProperty);
    const near = accepted.find((a) => a.toLowerCase() === name.toLowerCase());
    return {
      instancePath: `/${pointerToken(name)}`,
      schemaPath: issue.schemaPath,
      keyword: 'unknownParameter',
      message: `is not a known parameter${near ? ` (did you mean ${near}?)` : ''}`,
      params: { accepted },
    };
  });
}

/** The JSON Pointer of the first string (value or member name) holding a NUL character, if any. */
function nulPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '/' : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, member] of Object.entries(value)) {
    const at = `${path}/${pointerToken(key)}`;
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
  const isQuery = httpPart === 'querystring';
  const partSchema = isQuery ? closedQuery(schema as PartSchema) : (schema as PartSchema);
  const validate = (httpPart === 'body' ? strict : coercing).compile(partSchema as object);
  const integers = httpPart === 'body' ? [] : integerMembers(partSchema);
  const exactlyOne = exactlyOneGroup(partSchema);
  const accepted = Object.keys(partSchema.properties ?? {});
  const checked = ((data: unknown, context?: object) => {
    // Read before Ajv coerces the strings in place.
    const notDecimal = integerIssues(data, integers);
    const ok = context === undefined ? validate(data) : validate(data, context as never);
    if (notDecimal.length > 0 || !ok) {
      let issues = (validate.errors ?? []) as AjvIssue[];
      issues = issues.filter((e) => !notDecimal.some((n) => n.instancePath === e.instancePath));
      issues = exactlyOneIssues(issues, exactlyOne);
      if (isQuery) issues = unknownParameterIssues(issues, accepted);
      checked.errors = [...notDecimal, ...issues].slice(0, MAX_FIELD_ERRORS) as typeof validate.errors;
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

/**
 * preValidation hook for routes whose body is optional (`rotate`, `revoke`): Fastify validates a
 * missing body as `null`, which an object schema rejects, so a bare POST would be a 422. An absent
 * body is read as `{}` (and gets the schema's defaults); an explicit JSON `null` is still invalid.
 */
export async function absentBodyAsEmpty(request: { body: unknown }) {
  if (request.body === undefined) request.body = {};
}
