import type { FieldError } from './errors.ts';

/** At most this many entries in a problem's `errors` (a huge bad body must not make a huge answer). */
export const MAX_FIELD_ERRORS = 20;

export interface AjvIssue {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Keywords of the issues validation.ts adds itself, whose message is already the one to show. */
export const OWN_KEYWORDS = new Set(['nul', 'decimalInteger', 'exactlyOne', 'unknownParameter']);

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

/** A member name as a JSON Pointer reference token (RFC 6901). */
export const pointerToken = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/** The message of one issue, as the problem's `errors[].message` gives it. */
function messageOf(issue: AjvIssue): string {
  if (OWN_KEYWORDS.has(issue.keyword)) return issue.message ?? 'is invalid';
  switch (issue.keyword) {
    case 'additionalProperties':
      return 'is not a known field';
    case 'required':
      return 'is required';
    case 'anyOf':
    case 'oneOf':
      return 'matches none of the allowed forms';
    case 'format':
      return issue.params.format === 'date-time'
        ? 'must be an RFC 3339 date-time, such as 2026-11-21T10:00:00Z'
        : (issue.message ?? 'is invalid');
    case 'enum': {
      // The values themselves say what to send instead (scopes, event types: short closed lists).
      const allowed = issue.params.allowedValues;
      return Array.isArray(allowed) && allowed.length <= 20
        ? `must be one of: ${allowed.join(', ')}`
        : (issue.message ?? 'is invalid');
    }
    default:
      return issue.message ?? 'is invalid';
  }
}

/** Ajv issues as the problem's `errors: [{path, message}]` (JSON Pointer paths), at most MAX_FIELD_ERRORS. */
export function fieldErrors(issues: AjvIssue[], httpPart: string | undefined): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of withoutBranchIssues(issues)) {
    let path = issue.instancePath;
    if (issue.keyword === 'required') path += `/${pointerToken(String(issue.params.missingProperty))}`;
    if (issue.keyword === 'additionalProperties')
      path += `/${pointerToken(String(issue.params.additionalProperty))}`;
    const prefix = httpPart === 'querystring' ? 'query' : httpPart === 'params' ? 'path' : '';
    const error = { path: prefix ? `${prefix}:${path || '/'}` : path || '/', message: messageOf(issue) };
    const key = `${error.path}\u0000${error.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push(error);
    if (errors.length === MAX_FIELD_ERRORS) break;
  }
  return errors;
}

/**
 * The problem's `detail` for failed validation: each failure, then, when a query parameter was not
 * one the route takes, the ones it does take (a typo in a filter name must not pass for no filter).
 */
export function validationDetail(issues: AjvIssue[], errors: FieldError[]): string {
  const failures = errors.map((e) => `${e.path} ${e.message}`).join('; ');
  const unknown = issues.find((i) => i.keyword === 'unknownParameter');
  const accepted = unknown?.params.accepted;
  if (!Array.isArray(accepted)) return failures;
  return `${failures}. This route takes only these query parameters (names are case-sensitive): ${
    accepted.length > 0 ? accepted.join(', ') : 'none'
  }.`;
}
