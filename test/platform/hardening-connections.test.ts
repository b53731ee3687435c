import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';

/** Clients that cut their upload short, and pipelined requests. */
let t: TestApp;
let tenant: Tenant;
const logLines: { level: number; msg: string; [k: string]: unknown }[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' }, logger: { level: 'trace', stream } });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const port = () => Number(new URL(t.baseUrl).port);

/** Writes `data` on a fresh connection and collects everything the server sends until it closes. */
function exchange(data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port(), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(data);
    setTimeout(() => socket.destroy(), 5000).unref();
  });
}

const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

describe('a request line Node refuses', () => {
  // A command copied with its placeholder (ch_…) once got `instance: ""` and no hint.
  it('names the query parameter holding a placeholder, and the path', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port(), '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
      socket.write(
        Buffer.from('GET /v1/consent-state?channelId=ch_\u2026&subjectId=s HTTP/1.1\r\nHost: x\r\n\r\n'),
      );
      setTimeout(() => socket.destroy(), 5000).unref();
    });
    expect(received).toMatch(/^HTTP\/1\.1 400 /);
    const problem = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
    expect(problem.code).toBe('malformed_request');
    expect(problem.instance).toBe('/v1/consent-state');
    expect(problem.detail).toContain('query parameter channelId holds the placeholder');
  });

  it('names the path parameter when the placeholder is in the path, with no instance', async () => {
    const received = await exchange('GET /v1/channels/ch_\u2026 HTTP/1.1\r\nHost: x\r\n\r\n');
    const problem = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
    expect(problem.code).toBe('malformed_request');
    expect(problem.instance).toBe('');
    expect(problem.detail).toContain('The path parameter id holds the placeholder');
  });

  it('names the path and the byte when another character there is not percent-encoded', async () => {
    const received = await exchange('GET /v1/caf\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n');
    const problem = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
    expect(problem.code).toBe('malformed_request');
    expect(problem.detail).toContain(
      'The request path holds a character that must be percent-encoded (byte 0xC3)',
    );
  });
});

describe('a client that aborts its upload', () => {
  it('is not logged as a database outage, nor at error level', async () => {
    const before = logLines.length;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port(), '127.0.0.1', () => {
        socket.write(
          'POST /v1/channels HTTP/1.1\r\nHost: x\r\n' +
            `Authorization: Bearer ${tenant.testKey}\r\nContent-Type: application/json\r\n` +
            'Content-Length: 100000\r\n\r\n{"name":"cut',
        );
        // Cut once the server has started reading the body.
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 300);
      });
    });
    await until(() => logLines.slice(before).some((l) => l.msg === 'request completed'), 3000);
    const lines = logLines.slice(before);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('database unreachable');
    expect(JSON.stringify(lines)).not.toContain('service_unavailable');
    // And the service is fine.
    const res = await t.http.get('/v1/channels', { key: tenant.testKey });
    expect(res.status).toBe(200);
  });
});

describe('pipelined requests', () => {
  it('a malformed second request does not discard the answer to the valid first one', async () => {
    const body = JSON.stringify({ name: 'pipelined' });
    const received = await exchange(
      'POST /v1/channels HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: Bearer ${tenant.testKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` +
        'GET /v1/channels HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
    );
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses, received).toEqual([201, 400]);
    expect(received).toContain('"name":"pipelined"');
    expect(received).toContain('"code":"malformed_request"');
    // The first request committed exactly once.
    const list = await t.http.get('/v1/channels?limit=100', { key: tenant.testKey });
    expect(list.body.data.filter((c: { name: string }) => c.name === 'pipelined')).toHaveLength(1);
  });

  it('a malformed request after a slow valid one still waits for its answer', async () => {
    const received = await exchange(
      `GET /v1/channels HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.testKey}\r\n\r\n` +
        'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n',
    );
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses, received).toEqual([200, 400]);
  });
});
