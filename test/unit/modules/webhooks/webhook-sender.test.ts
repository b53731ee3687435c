import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryAfterMs, sendWebhook } from '../../../../src/modules/webhooks/webhook-sender.ts';

/**
 * A loopback port whose connections are never completed, as a destination that drops packets:
 * a listener with a backlog of one, in a thread that never accepts. Once its queue is full the
 * kernel drops further connection requests, so a connect hangs as it would to a black hole.
 */
async function blackHole(): Promise<{ port: number; close(): Promise<void> }> {
  const worker = new Worker(
    `const net = require('node:net');
     const { parentPort } = require('node:worker_threads');
     const server = net.createServer();
     server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
     });`,
    { eval: true },
  );
  const port: number = await new Promise((resolve) => worker.once('message', resolve));
  // Fill the accept queue (its connects complete); a connect that still completes would be a bug.
  const fillers: net.Socket[] = [];
  for (;;) {
    const socket = net.connect(port, '127.0.0.1');
    fillers.push(socket);
    const connected = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('error', () => resolve(false));
      setTimeout(() => resolve(false), 500);
    });
    if (!connected) break;
  }
  return {
    port,
    async close() {
      for (const socket of fillers) socket.destroy();
      await worker.terminate();
    },
  };
}

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

  it('gives up connecting to a destination that drops packets at the connect limit, not the whole one', async () => {
    const hole = await blackHole();
    try {
      const result = await sendWebhook({
        url: new URL(`http://hooks.invalid:${hole.port}/`),
        addresses: ['127.0.0.1'],
        headers: { 'content-type': 'application/json' },
        body: '{}',
        timeoutMs: 20_000,
        connectTimeoutMs: 300,
      });
      expect(result).toMatchObject({ status: null, error: 'could not connect within 300 ms' });
      expect(result.durationMs).toBeLessThan(10_000);
    } finally {
      await hole.close();
    }
  }, 25_000);

  it('a listener that accepts and never answers ends the attempt at the whole limit', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port: silentPort } = silent.address() as AddressInfo;
    try {
      const result = await sendWebhook({
        url: new URL(`http://hooks.invalid:${silentPort}/`),
        addresses: ['127.0.0.1'],
        headers: { 'content-type': 'application/json' },
        body: '{}',
        timeoutMs: 400,
        connectTimeoutMs: 300,
      });
      // Connected at once: the connect limit does not apply; the whole one does.
      expect(result).toMatchObject({ status: null, error: 'timed out after 400 ms' });
    } finally {
      silent.close();
    }
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

// store-independent: the webhook sender against a local HTTP server, no database
