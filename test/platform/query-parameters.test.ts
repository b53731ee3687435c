import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * A query parameter a route does not take is refused, never ignored: a typo in a filter name
 * (`actorid=` for `actorId=`) used to answer the whole unfiltered list (100 audit rows). The routes
 * are read from the served OpenAPI document, so a list added later is walked too, and the problem
 * must list exactly the parameters the document says the route takes.
 */

type Parameter = { in: string; name: string; required?: boolean };
type Operation = {
  parameters?: Parameter[];
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
};
type Route = { path: string; query: Parameter[]; isList: boolean; isPublic: boolean };

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let eventId: string;
let routes: Route[];

function resolve(document: any, schema: Record<string, unknown> | undefined): any {
  let current: any = schema;
  while (current?.$ref) current = document.components.schemas[String(current.$ref).split('/').pop()!];
  return current;
}

/** GET operations that take query parameters, or answer a page (`meta.nextCursor`): lists. */
function routesOf(document: any): Route[] {
  const found: Route[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    const operation = item.get;
    if (!operation) continue;
    const ok = resolve(document, operation.responses['200']?.content?.['application/json']?.schema);
    const isList = ok?.properties?.meta?.properties?.nextCursor !== undefined;
    const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
    if (query.length > 0 || isList) {
      found.push({
        path,
        query,
        isList,
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return found;
}

function fill(path: string): string {
  return path
    .replace('{siteKey}', site.siteKey)
    .replace('{eventId}', eventId)
    .replace(/\{[A-Za-z]+\}/, site.channelId);
}

/** A plausible typo: a declared filter in lower case (actorId → actorid), else a misspelt one. */
function typoOf(route: Route): { sent: string; near: string | null } {
  const named = route.query.find((p) => p.name !== p.name.toLowerCase());
  if (named) return { sent: named.name.toLowerCase(), near: named.name };
  const any = route.query[0];
  if (any) return { sent: any.name.toUpperCase(), near: any.name };
  return { sent: 'chanelId', near: null };
}

const get = (route: Route, query: string) =>
  t.http.get(`${fill(route.path)}?${query}`, route.isPublic ? {} : { key: tenant.testKey });

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  eventId = (await recordConsent(t, site)).id;
  routes = routesOf((await t.http.get('/v1/openapi.json')).body);
});
afterAll(() => t.close());

describe('unknown query parameters', () => {
  it('the document lists the routes this walk covers', () => {
    const lists = routes.filter((r) => r.isList).map((r) => r.path);
    // The lists a fuzzer found answering everything to a mistyped filter, and the one without paging.
    expect(lists).toEqual(
      expect.arrayContaining([
        '/v1/channels',
        '/v1/channels/{id}/purposes',
        '/v1/channels/{id}/technologies',
        '/v1/channels/{id}/origins',
        '/v1/channels/{id}/identity-secrets',
        '/v1/api-keys',
        '/v1/audit-logs',
        '/v1/exports',
        '/v1/webhook-destinations',
        '/v1/webhook-deliveries',
        '/v1/evidence',
      ]),
    );
  });

  it('every list answers without one, and refuses a mistyped one with 422 naming it and listing those it takes', async () => {
    for (const route of routes.filter((r) => r.isList)) {
      const plain = await get(route, '');
      expect(plain.status, `${route.path}: ${plain.text.slice(0, 200)}`).toBe(200);
      const { sent, near } = typoOf(route);
      const res = await get(route, `${encodeURIComponent(sent)}=x`);
      const problem = expectProblemShape(res, 422, 'validation_failed');
      expect(problem.errors, route.path).toEqual([
        {
          path: `query:/${sent}`,
          message: `is not a known parameter${near ? ` (did you mean ${near}?)` : ''}`,
        },
      ]);
      const names = route.query.map((p) => p.name);
      expect(problem.detail, route.path).toContain(
        `This route takes only these query parameters (names are case-sensitive): ${names.length > 0 ? names.join(', ') : 'none'}.`,
      );
    }
  });

  it('a known parameter beside an unknown one does not make the unknown one pass', async () => {
    const audit = routes.find((r) => r.path === '/v1/audit-logs')!;
    const res = await get(audit, `actorId=${encodeURIComponent('key_x')}&targetid=ch_1&limit=5`);
    expect(expectProblemShape(res, 422, 'validation_failed').errors).toEqual([
      { path: 'query:/targetid', message: 'is not a known parameter (did you mean targetId?)' },
    ]);
  });

  it('every other route with query parameters refuses unknown ones too, public ones included, except the receipt link', async () => {
    const others = routes.filter((r) => !r.isList && r.path !== '/v1/public/receipts/{eventId}');
    expect(others.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        '/v1/consent-state',
        '/v1/analytics/consent',
        '/v1/tcf/vendor-list',
        '/v1/public/sites/{siteKey}/config',
      ]),
    );
    for (const route of others) {
      const res = await get(route, 'utm_source=newsletter');
      const problem = expectProblemShape(res, 422, 'validation_failed');
      expect(problem.errors, route.path).toContainEqual({
        path: 'query:/utm_source',
        message: 'is not a known parameter',
      });
    }
  });

  it('the receipt link takes the parameters the places it passes through add', async () => {
    const recorded = await recordConsent(t, site);
    const token = new URL(recorded.receipt.url).searchParams.get('token') as string;
    const res = await t.http.get(
      `/v1/public/receipts/${recorded.id}?token=${encodeURIComponent(token)}&utm_source=mail&fbclid=abc`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.eventId).toBe(recorded.id);
  });
});
