import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite } from '../helpers/sites.ts';

/** A pino destination that keeps every line, parsed. */
function captureStream() {
  const lines: Array<Record<string, any>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { stream, lines, raw };
}

let t: TestApp;
let org: Tenant;
const captured = captureStream();

beforeAll(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'info' }, logger: { stream: captured.stream } });
  org = await t.tenant();
});
afterAll(() => t?.close());

const linesOf = (requestId: string) => captured.lines.filter((l) => l.reqId === requestId);

describe('request logs', () => {
  it('one JSON line per request: request id, route template, status, duration, organization and key ids', async () => {
    const key = await org.key(['channels:read']);
    const res = await t.http.get('/v1/channels?limit=5', {
      key: key.secret,
      headers: { 'x-request-id': 'req-log-one' },
    });
    expect(res.status).toBe(200);
    const lines = linesOf('req-log-one');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      msg: 'request completed',
      level: 30,
      reqId: 'req-log-one',
      route: '/v1/channels',
      statusCode: 200,
      organizationId: org.organizationId,
      keyId: key.id,
      req: { method: 'GET', url: '/v1/channels?limit=5' },
    });
    expect(typeof line.durationMs).toBe('number');
    const text = JSON.stringify(line);
    expect(text).not.toContain(key.secret);
    expect(text).not.toMatch(/authorization|svc_test_/i);
  });

  it('a config read answered before Fastify logs the same line as one routed through it', async () => {
    const site = await createReadySite(t, org.testKey);
    const read = (requestId: string, query = '') =>
      t.http.get(`/v1/public/sites/${site.siteKey}/config${query}`, {
        headers: { 'x-request-id': requestId },
      });
    expect((await read('req-log-cache-fill')).status).toBe(200);
    expect((await read('req-log-fast')).status).toBe(200);
    // An empty query string leaves the request to Fastify's route (config-fast-path.ts).
    expect((await read('req-log-routed', '?')).status).toBe(200);
    const [fast] = linesOf('req-log-fast');
    const [routed] = linesOf('req-log-routed');
    expect(linesOf('req-log-fast')).toHaveLength(1);
    const shape = (line: Record<string, any>) => ({
      ...line,
      time: 0,
      durationMs: typeof line.durationMs,
      reqId: 'x',
      req: { ...line.req, url: line.req.url.split('?')[0], remotePort: typeof line.req.remotePort },
    });
    expect(shape(fast)).toEqual(shape(routed));
    expect(fast).toMatchObject({
      route: '/v1/public/sites/:siteKey/config',
      statusCode: 200,
      reqId: 'req-log-fast',
    });
  });

  it('logs errors and unmatched routes on one line too, without a body', async () => {
    const res = await t.http.post('/v1/channels', {
      key: org.testKey,
      body: { name: ['body-must-not-be-logged-xyz'] },
      headers: { 'x-request-id': 'req-log-two' },
    });
    expect(res.status).toBe(422);
    const [line, ...rest] = linesOf('req-log-two').filter((l) => l.msg === 'request completed');
    expect(rest).toHaveLength(0);
    expect(line).toMatchObject({
      route: '/v1/channels',
      statusCode: 422,
      organizationId: org.organizationId,
    });
    expect(JSON.stringify(captured.lines)).not.toContain('body-must-not-be-logged-xyz');

    await t.http.get('/nothing/here', { headers: { 'x-request-id': 'req-log-three' } });
    expect(linesOf('req-log-three')).toMatchObject([{ route: 'unmatched', statusCode: 404 }]);
  });

  it('redacts a raw subject id in the logged URL', async () => {
    const subjectId = 'visitor-raw-subject-id-77';
    const res = await t.http.get(`/v1/evidence?subjectId=${subjectId}`, {
      key: org.testKey,
      headers: { 'x-request-id': 'req-log-four' },
    });
    expect(res.status).toBe(200);
    const [line] = linesOf('req-log-four');
    expect(line.route).toBe('/v1/evidence');
    expect(line.req.url).toBe('/v1/evidence?subjectId=[redacted]');
    expect(captured.raw.join('\n')).not.toContain(subjectId);
  });

  it('redacts a signed-in visitor’s raw account id in the logged URL', async () => {
    const accountId = 'account-raw-id-1842';
    const res = await t.http.get(`/v1/consent-state?channelId=ch_none&accountId=${accountId}`, {
      key: org.testKey,
      headers: { 'x-request-id': 'req-log-account' },
    });
    expect(res.status).toBe(404);
    const [line] = linesOf('req-log-account');
    expect(line.req.url).toBe('/v1/consent-state?channelId=ch_none&accountId=[redacted]');
    expect(captured.raw.join('\n')).not.toContain(accountId);
  });

  it('redacts by the name the route reads: percent-encoded names, a receipt token, a name that does not decode', async () => {
    const subjectId = 'visitor-raw-subject-id-encoded-78';
    const token = 'receipt-capability-token-79';
    const cases = [
      // %49 is 'I': the route reads subjectId, so the filter applies and the value is a raw id.
      {
        url: `/v1/evidence?limit=5&subject%49d=${subjectId}`,
        id: 'req-log-five',
        logged: '/v1/evidence?limit=5&subject%49d=[redacted]',
      },
      {
        url: `/v1/public/receipts/evt_nope?to%6Ben=${token}`,
        id: 'req-log-six',
        logged: '/v1/public/receipts/evt_nope?to%6Ben=[redacted]',
      },
      {
        url: `/v1/evidence?subject%E0Id=${subjectId}&limit=5`,
        id: 'req-log-seven',
        logged: '/v1/evidence?subject%E0Id=[redacted]&limit=5',
      },
    ];
    for (const { url, id, logged } of cases) {
      await t.http.get(url, { key: org.testKey, headers: { 'x-request-id': id } });
      const [line] = linesOf(id);
      expect(line.req.url).toBe(logged);
    }
    const all = captured.raw.join('\n');
    expect(all).not.toContain(subjectId);
    expect(all).not.toContain(token);
  });
});

describe('LOG_LEVEL', () => {
  it('warn keeps request lines out', async () => {
    const quiet = captureStream();
    const app = await startTestApp({
      env: { LOG_LEVEL: 'warn' },
      logger: { stream: quiet.stream },
      store: t.store,
    });
    try {
      expect((await app.http.get('/healthz')).status).toBe(200);
      expect(quiet.lines.filter((l) => l.msg === 'request completed')).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});
