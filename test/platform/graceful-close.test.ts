import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp | undefined;
afterAll(() => t?.close());

/**
 * A close that begins while a request is in flight on a kept-alive connection: the request is
 * answered, and then the server ends the connection, so the close completes instead of waiting out
 * the 72 s keep-alive timeout (src/platform/http/graceful-close.ts). Before that, a SIGTERM during
 * an export download held the service until the client's connection timed out.
 */
it('a close during a request answers it, then ends its kept-alive connection and completes', async () => {
  t = await startTestApp();
  const tenant = await t.tenant();
  // Keeps its connections for as long as the server does, as a load balancer or fetch would.
  const agent = new http.Agent({ keepAlive: true });
  const body = JSON.stringify({ name: 'Created while closing' });
  const request = http.request(`${t.baseUrl}/v1/channels`, {
    agent,
    method: 'POST',
    headers: {
      authorization: `Bearer ${tenant.testKey}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const socketClosed = new Promise<void>((resolve) =>
    request.on('socket', (socket: Socket) => socket.once('close', () => resolve())),
  );
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    request.on('error', reject);
  });
  // Headers first: the server has the request in hand when the close begins; the body follows.
  const received = new Promise((resolve) => t?.app.server.once('request', resolve));
  request.write(body.slice(0, 5));
  await received;

  const closing = t.app.close();
  request.end(body.slice(5));
  const answer = await answered;
  expect(answer.status, answer.text).toBe(201);
  expect(JSON.parse(answer.text).data.name).toBe('Created while closing');
  // The connection was kept alive when answered; the server ends it (the test times out if not).
  await socketClosed;
  await closing;
  agent.destroy();
});
