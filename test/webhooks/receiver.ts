import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  contentType: string;
  body: string;
  payload: any;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A real webhook receiver on 127.0.0.1. `reply` decides each response; by default 200.
 */
export async function startReceiver() {
  const received: Received[] = [];
  let reply: (request: Received) => Reply = () => ({ status: 200 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: Received = {
        id: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        contentType: String(req.headers['content-type'] ?? ''),
        body,
        payload: JSON.parse(body),
      };
      received.push(request);
      const answer = reply(request);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    reply(fn: (request: Received) => Reply) {
      reply = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The Standard Webhooks check, written here from the specification and not from the service's
 * signer: HMAC-SHA256 keyed with the base64-decoded part of `whsec_…` over `id.timestamp.body`,
 * compared to each space-separated `v1,<base64>` entry of the header in constant time.
 */
export function verifies(secret: string, request: Received): boolean {
  if (!secret.startsWith('whsec_')) return false;
  const key = Buffer.from(secret.substring(6), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${request.id}.${request.timestamp}.${request.body}`, 'utf8')
    .digest();
  return request.signature.split(' ').some((entry) => {
    const comma = entry.indexOf(',');
    if (entry.slice(0, comma) !== 'v1') return false;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
