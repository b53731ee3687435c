import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryAfterMs, sendWebhook } from './webhook-sender.ts';

let server: http.Server;
let port: number;
const hosts: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hosts.push(String(req.headers.host));
    req.resume();
    if (req.url === '/slow') return; // never answers
    if (req.url === '/big') {
      res.writeHead(200);
      res.end(Buffer.alloc(5 * 1024 * 1024, 97));
      return;
    }
    res.writeHead(200);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const send = (path: string, host = 'hooks.invalid', timeoutMs = 2000) =>
  sendWebhook({
    url: new URL(`http://${host}:${port}${path}`),
    addresses: ['127.0.0.1'],
    headers: { 'content-type': 'application/json' },
    body: '{}',
    timeoutMs,
  });

describe('sendWebhook', () => {
  it('connects to the vetted address, never resolving the name again (no DNS rebinding)', async () => {
    const result = await send('/ok');
    expect(result).toMatchObject({ status: 200, error: null });
    expect(hosts.at(-1)).toBe(`hooks.invalid:${port}`);
  });

  it('gives up after the timeout', async () => {
    const result = await send('/slow', 'hooks.invalid', 300);
    expect(result).toMatchObject({ status: null, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('reads at most about 1 KiB of a response body', async () => {
    const result = await send('/big');
    expect(result).toMatchObject({ status: 200, error: null });
  });
});

describe('retryAfterMs', () => {
  const now = new Date('2026-11-21T10:00:00Z');
  it('reads delay-seconds and HTTP dates', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Sat, 21 Nov 2026 10:05:00 GMT', now)).toBe(300_000);
    expect(retryAfterMs('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});
