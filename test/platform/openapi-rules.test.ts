import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The OpenAPI document states the rules the service enforces, no looser: a client generated from
 * it, or a fuzzer reading it, must find that what the document allows is taken and what it refuses
 * is refused. Each rule is checked both ways: the document's own schema (JSON Schema 2020-12, as
 * OpenAPI 3.1 says) judges a set of values, and the service answers each of them over HTTP.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const DOCUMENT = 'https://consent-service.test/openapi-rules.json';

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let document: Record<string, any>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

const segment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const compile = (pointer: string): ValidateFunction => ajv.compile({ $ref: `${DOCUMENT}#${pointer}` });

/** The document's schema of a JSON request body. */
const bodySchema = (path: string, method = 'post') =>
  compile(`/paths/${segment(path)}/${method}/requestBody/content/application~1json/schema`);

/** The document's schema of one parameter (`in` query or header). */
function parameterSchema(path: string, method: string, where: string, name: string) {
  const parameters: Array<{ in: string; name: string }> = document.paths[path][method].parameters;
  const index = parameters.findIndex((p) => p.in === where && p.name === name);
  expect(index, `${method} ${path} documents ${where} ${name}`).toBeGreaterThanOrEqual(0);
  return compile(`/paths/${segment(path)}/${method}/parameters/${index}/schema`);
}

/** Each value is taken (2xx) exactly when the document's schema allows it. */
async function agree<T>(
  label: string,
  validate: ValidateFunction,
  values: T[],
  send: (value: T) => Promise<TestResponse>,
): Promise<Map<T, TestResponse>> {
  const answers = new Map<T, TestResponse>();
  for (const value of values) {
    const documented = validate(value);
    const res = await send(value);
    answers.set(value, res);
    const what = `${label} ${JSON.stringify(value)}: the document says ${documented ? 'valid' : 'invalid'}, the service answered ${res.status} ${res.text.slice(0, 200)}`;
    expect(res.status < 300, what).toBe(documented);
    if (!documented) expect(res.status, what).toBeGreaterThanOrEqual(400);
  }
  return answers;
}

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  document = (await t.http.get('/v1/openapi.json')).body;
  ajv.addSchema({ ...document, $id: DOCUMENT });
});
afterAll(() => t.close());

describe('the OpenAPI document states what the service enforces', () => {
  it('scopes: an enum of the catalogue (with its alias) and at least one; unknown names are 422 invalid_scopes, quoted', async () => {
    const scopes =
      document.paths['/v1/api-keys'].post.requestBody.content['application/json'].schema.properties.scopes;
    expect(scopes.minItems).toBe(1);
    expect(scopes.items.enum).toEqual(expect.arrayContaining(['channels:read', 'webhooks:manage']));
    let n = 0;
    const answers = await agree(
      'scopes',
      bodySchema('/v1/api-keys'),
      [['channels:read'], ['webhooks:manage'], [], [''], ['channels:read', 'admin:all']].map((s) => ({
        name: 'key',
        scopes: s,
      })),
      (body) => t.http.post('/v1/api-keys', { key: tenant.testKey, body: { ...body, name: `key ${++n}` } }),
    );
    const [, , empty, blank, unknown] = [...answers.values()];
    expect(expectProblemShape(empty, 422, 'validation_failed').errors[0].path).toBe('/scopes');
    const blankProblem = expectProblemShape(blank, 422, 'invalid_scopes');
    expect(blankProblem.invalidScopes).toEqual(['']);
    // Once "Unknown scopes: ." with nothing to see.
    expect(blankProblem.detail).toMatch(
      /^Unknown scopes: ""\. Name scopes of the catalogue: evidence:read, /,
    );
    expect(expectProblemShape(unknown, 422, 'invalid_scopes').invalidScopes).toEqual(['admin:all']);
  });

  it('from and to are date-times, in queries and in the export body', async () => {
    const values = [
      '2026-11-21T10:00:00Z',
      '2026-11-21T10:00:00.250+02:00',
      '2026-02-30T00:00:00Z',
      '2026-11-21',
      'yesterday',
      '2026-11-21T25:00:00Z',
    ];
    for (const path of ['/v1/audit-logs', '/v1/evidence']) {
      for (const name of ['from', 'to']) {
        const documented = document.paths[path].get.parameters.find((p: { name: string }) => p.name === name);
        expect(documented.schema.format, `${path} ${name}`).toBe('date-time');
        const answers = await agree(
          `${path} ${name}`,
          parameterSchema(path, 'get', 'query', name),
          values,
          (v) => t.http.get(`${path}?${name}=${encodeURIComponent(v)}`, { key: tenant.testKey }),
        );
        const refused = answers.get('yesterday')!;
        expect(expectProblemShape(refused, 422, 'validation_failed').errors).toEqual([
          { path: `query:/${name}`, message: 'must be an RFC 3339 date-time, such as 2026-11-21T10:00:00Z' },
        ]);
      }
    }
    await agree(
      'POST /v1/exports from',
      bodySchema('/v1/exports'),
      values.map((from) => ({ from })),
      (body) => t.http.post('/v1/exports', { key: tenant.testKey, body }),
    );
    // RFC 3339's date-time has a T (or t) between date and time; a space is refused too.
    const spaced = await t.http.get('/v1/audit-logs?from=2026-11-21%2010:00:00Z', { key: tenant.testKey });
    expectProblemShape(spaced, 422, 'validation_failed');
  });

  it('translations are keyed by language tag', async () => {
    const translations =
      document.paths['/v1/channels/{id}/purposes'].post.requestBody.content['application/json'].schema
        .properties.translations;
    expect(translations.propertyNames.pattern).toMatch(/^\^\[a-z\]/);
    let n = 0;
    const answers = await agree(
      'translations',
      bodySchema('/v1/channels/{id}/purposes'),
      [
        { fr: { name: 'Mesure' } },
        { 'pt-BR': { name: 'Medição' } },
        { FR: { name: 'Mesure' } },
        { 'fr fr': { name: 'x' } },
      ].map((translations) => ({ key: 'measure', name: 'Measure', translations })),
      (body) =>
        t.http.post(`/v1/channels/${site.channelId}/purposes`, {
          key: tenant.testKey,
          body: { ...body, key: `measure_${++n}` },
        }),
    );
    expect(expectProblemShape([...answers.values()][2], 422, 'validation_failed').errors[0].path).toBe(
      '/translations/FR',
    );
  });

  it('eventTypes: ["*"] alone or types of the catalogue', async () => {
    const answers = await agree(
      'eventTypes',
      bodySchema('/v1/webhook-destinations'),
      [
        ['*'],
        ['channel.created', 'consent.recorded'],
        ['*', 'channel.created'],
        ['bogus'],
        [],
        ['*', '*'],
      ].map((eventTypes) => ({ url: 'http://127.0.0.1:9/hook', eventTypes })),
      (body) => t.http.post('/v1/webhook-destinations', { key: tenant.testKey, body }),
    );
    const [, , mixed, bogus] = [...answers.values()];
    expect(expectProblemShape(mixed, 422, 'validation_failed').errors).toEqual([
      { path: '/eventTypes/0', message: expect.stringMatching(/^must be one of: consent\.recorded, /) },
    ]);
    expect(expectProblemShape(bogus, 422, 'validation_failed').errors[0].path).toBe('/eventTypes/0');
  });

  it('region of the public routes: a country or subdivision code, on test and live channels', async () => {
    const live = await createReadySite(t, tenant.liveKey);
    for (const channel of [site, live]) {
      await agree(
        `region (${channel.siteKey.slice(0, 9)})`,
        parameterSchema('/v1/public/sites/{siteKey}/config', 'get', 'query', 'region'),
        ['FR', 'US-CA', 'usa', 'FRANCE', 'US-', 'fr'],
        (region) =>
          t.http.get(`/v1/public/sites/${channel.siteKey}/config?region=${encodeURIComponent(region)}`),
      );
    }
  });

  it('Idempotency-Key: the values the service reads as a key, bare or quoted', async () => {
    const validate = parameterSchema('/v1/api-keys', 'post', 'header', 'Idempotency-Key');
    const values = [
      'export-1',
      'a"b',
      'x y',
      '"quoted"',
      '"with \\" and \\\\"',
      '"',
      'a'.repeat(255),
      `"${'b'.repeat(255)}"`,
      `"${'\\"'.repeat(255)}"`,
      // Refused: empty when unquoted, a bad escape, not closed, text after the end, too long.
      '""',
      '"a\\x"',
      '"abc',
      '"a"b',
      'a'.repeat(256),
      `"${'a'.repeat(256)}"`,
    ];
    let n = 0;
    const answers = await agree('Idempotency-Key', validate, values, (value) =>
      t.http.post('/v1/api-keys', {
        key: tenant.testKey,
        body: { name: `idempotent ${n}`, scopes: ['channels:read'] },
        // Each distinct, so that none replays another's answer: the values are new per run.
        headers: { 'idempotency-key': value.replace(/export-1|quoted/, `$&-${++n}-${Date.now()}`) },
      }),
    );
    for (const value of values.slice(9))
      expectProblemShape(answers.get(value)!, 400, 'invalid_idempotency_key');
  });

  it('lookups take exactly one of subjectIds and accountIds (oneOf)', async () => {
    const schema =
      document.paths['/v1/consent-state/lookups'].post.requestBody.content['application/json'].schema;
    expect(schema.oneOf).toEqual([{ required: ['subjectIds'] }, { required: ['accountIds'] }]);
    const channelId = site.channelId;
    const answers = await agree(
      'lookups',
      bodySchema('/v1/consent-state/lookups'),
      [
        { channelId, subjectIds: ['visitor-0001'] },
        { channelId, accountIds: ['account-1'] },
        { channelId },
        { channelId, subjectIds: ['visitor-0001'], accountIds: ['account-1'] },
      ],
      (body) => t.http.post('/v1/consent-state/lookups', { key: tenant.testKey, body }),
    );
    for (const res of [...answers.values()].slice(2)) {
      expect(expectProblemShape(res, 422, 'validation_failed').errors).toEqual([
        { path: '/subjectIds', message: 'send exactly one of subjectIds and accountIds' },
        { path: '/accountIds', message: 'send exactly one of subjectIds and accountIds' },
      ]);
    }
  });
});
