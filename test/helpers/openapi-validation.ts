import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Every HTTP response a test receives from the service is checked against the OpenAPI document
 * the service serves (GET /v1/openapi.json): its status must be documented for the operation,
 * its Content-Type must be one the response documents, a JSON body must match the documented
 * schema (JSON Schema 2020-12, as OpenAPI 3.1 says), documented headers must match theirs
 * (required ones present), and a header the document does not describe must be plain HTTP
 * plumbing (ALLOWED_UNDOCUMENTED). Any mismatch fails the request, hence the test.
 *
 * Installed once per test file by openapi-setup.ts over the global fetch, so the `http` client of
 * startTestApp, openapi-fetch and direct fetch calls are all checked. Requests that reach no
 * documented operation (health, console, docs pages, an unknown path or method) are not.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const DOCUMENT_ID = 'https://consent-service.test/openapi.json';

/** Transport and browser-security headers, which no API description lists. */
const ALLOWED_UNDOCUMENTED = [
  /^(date|connection|keep-alive|transfer-encoding|content-length|content-type|vary)$/,
  /^access-control-/,
  /^(x-content-type-options|x-frame-options|content-security-policy|referrer-policy|strict-transport-security)$/,
  /^cross-origin-/,
];

type Json = Record<string, any>;

export interface ValidationCounts {
  validated: number;
  /** Responses from the service that reach no documented operation (health, console, unknown paths). */
  notOperations: number;
}

export const counts: ValidationCounts = { validated: 0, notOperations: 0 };

export class ResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp; params: number }[];

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      params: (template.match(/\{/g) ?? []).length,
    }));
  }

  /** The operation a request reaches: static segments win over parameters, as in Fastify's router. */
  operation(method: string, pathname: string) {
    const matches = this.templates
      .filter((t) => t.pattern.test(pathname))
      .sort((a, b) => a.params - b.params);
    for (const { template } of matches) {
      const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
      const operation = this.document.paths[template][verb];
      if (operation) return { template, verb, operation };
    }
    return null;
  }

  /** Problems with this response; empty when it matches the document. */
  async check(method: string, pathname: string, response: Response): Promise<string[] | null> {
    // Node's HTTP parser answers 431 (headers too large) before any route runs: no operation's.
    if (response.status === 431) return null;
    const found = this.operation(method, pathname);
    if (!found) return null;
    const { template, verb, operation } = found;
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => operation.responses[k]);
    if (!key) return [`status ${status} is not documented`];
    const documented = operation.responses[key];
    const failures: string[] = [];

    const headers = this.resolve(documented.headers ?? {});
    const known = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
    for (const [name, header] of Object.entries<Json>(headers)) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) failures.push(`header ${name} is documented as required but missing`);
        continue;
      }
      const ref: string | undefined = documented.headers[name]?.$ref;
      const validate = this.validator(
        ref
          ? `${ref.slice(1)}/schema`
          : `${responsePointer(template, verb, key)}/headers/${pointerSegment(name)}/schema`,
      );
      if (header.schema && !validate(value)) failures.push(`header ${name}: ${describe(validate)}`);
    }
    response.headers.forEach((_value, name) => {
      if (!known.has(name) && !ALLOWED_UNDOCUMENTED.some((p) => p.test(name)))
        failures.push(`header ${name} is not documented`);
    });

    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const content: Json = documented.content ?? {};
    const hasBody = method !== 'HEAD' && status !== '204' && status !== '304';
    if (!hasBody) return failures;
    if (Object.keys(content).length === 0) {
      const text = await response.clone().text();
      if (text !== '') failures.push(`a body (${mediaType || 'no Content-Type'}) is not documented`);
      return failures;
    }
    if (!(mediaType in content)) {
      failures.push(
        `Content-Type ${mediaType || '(none)'} is not documented (${Object.keys(content).join(', ')})`,
      );
      return failures;
    }
    if (!/^application\/([a-z.-]+\+)?json$/.test(mediaType)) return failures;
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [...failures, `the ${mediaType} body is not JSON`];
    }
    const validate = this.validator(
      `${responsePointer(template, verb, key)}/content/${pointerSegment(mediaType)}/schema`,
    );
    if (!validate(body)) failures.push(`body: ${describe(validate)}`);
    return failures;
  }

  /**
   * Problems with a documented example body (the docs' examples, test/docs/examples.test.ts): its
   * status must be documented for the operation, and the body must match that status's JSON schema.
   * Null when no operation has this method and path.
   */
  checkExample(method: string, pathname: string, status: number, body: unknown): string[] | null {
    const found = this.operation(method, pathname);
    if (!found) return null;
    const { template, verb, operation } = found;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => operation.responses[k]);
    if (!key) return [`status ${status} is not documented`];
    const content: Json = operation.responses[key].content ?? {};
    const mediaType = Object.keys(content).find((type) => /^application\/([a-z.-]+\+)?json$/.test(type));
    if (!mediaType) return [`status ${status} documents no JSON body`];
    const validate = this.validator(
      `${responsePointer(template, verb, key)}/content/${pointerSegment(mediaType)}/schema`,
    );
    return validate(body) ? [] : [`body: ${describe(validate)}`];
  }

  private resolve(headers: Json): Json {
    return Object.fromEntries(
      Object.entries<Json>(headers).map(([name, header]) => [
        name,
        header.$ref ? pointerGet(this.document, header.$ref.slice(1)) : header,
      ]),
    );
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}

const pointerSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const responsePointer = (template: string, verb: string, key: string) =>
  `/paths/${pointerSegment(template)}/${verb}/responses/${key}`;
const pointerGet = (root: Json, pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
const describe = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');

/**
 * One validator per document text: services (each on its own port) serving the same document share
 * the schemas compiled, across the files of one worker process too. The origins are forgotten after
 * each file (forgetOrigins), since a later file's service may get a port an earlier one had.
 */
const byOrigin = new Map<string, Promise<ResponseValidator>>();
const byDocument = new Map<string, ResponseValidator>();

export function forgetOrigins() {
  byOrigin.clear();
}

function validatorFor(origin: string, realFetch: typeof fetch) {
  let validator = byOrigin.get(origin);
  if (!validator) {
    validator = realFetch(`${origin}/v1/openapi.json`).then(async (r) => {
      if (r.status !== 200) throw new Error(`GET ${origin}/v1/openapi.json answered ${r.status}`);
      const text = await r.text();
      let shared = byDocument.get(text);
      if (!shared) {
        shared = new ResponseValidator(JSON.parse(text) as Json);
        byDocument.set(text, shared);
      }
      return shared;
    });
    byOrigin.set(origin, validator);
  }
  return validator;
}

/** A fetch that checks every /v1 response of the service against the service's OpenAPI document. */
export function validatingFetch(realFetch: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await realFetch(input, init);
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input));
    if (!url.pathname.startsWith('/v1/') || url.pathname === '/v1/openapi.json') return response;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const failures = await (await validatorFor(url.origin, realFetch)).check(method, url.pathname, response);
    if (failures === null) {
      counts.notOperations++;
      return response;
    }
    counts.validated++;
    if (failures.length > 0) {
      throw new Error(
        `OpenAPI: ${method} ${url.pathname} → ${response.status} does not match /v1/openapi.json:\n  ${failures.join('\n  ')}`,
      );
    }
    return response;
  };
}
