import http from 'node:http';
import https from 'node:https';
import { pinnedLookup } from '../../platform/http/address-guard.ts';

export interface SendResult {
  /** The receiver's status, or null when no response came (refused, timeout, network error). */
  status: number | null;
  /** Retry-After of the response, raw. */
  retryAfter: string | null;
  error: string | null;
  durationMs: number;
}

export const RESPONSE_BODY_LIMIT = 1024;

/**
 * Time to open the TCP connection. A destination that drops packets answers nothing at all; the
 * attempt ends at this limit instead of waiting out the whole exchange's (or the system's minutes
 * of SYN retries), so a dead receiver frees the worker's slot quickly.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * POSTs one webhook: no redirects followed (Node's http never follows them), no connection reuse,
 * `connectTimeoutMs` to connect, `timeoutMs` for the whole exchange (connecting included), and at
 * most 1 KiB of the response body read.
 */
export function sendWebhook(input: {
  url: URL;
  addresses: string[];
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Default CONNECT_TIMEOUT_MS (never more than `timeoutMs`). */
  connectTimeoutMs?: number;
}): Promise<SendResult> {
  const started = performance.now();
  const { url } = input;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(connectTimer);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...input.headers,
          'content-length': Buffer.byteLength(input.body),
          'user-agent': 'consent-service-webhooks/1',
        },
        agent: false,
        lookup: pinnedLookup(input.addresses),
      },
      (response) => {
        const status = response.statusCode ?? null;
        const retryAfter = headerValue(response.headers['retry-after']);
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough of the body to know the response ended well; a receiver cannot make us buffer more.
          if (read >= RESPONSE_BODY_LIMIT) {
            response.destroy();
            finish({ status, retryAfter, error: errorFor(status) });
          }
        });
        response.on('end', () => finish({ status, retryAfter, error: errorFor(status) }));
        response.on('error', () => finish({ status, retryAfter, error: errorFor(status) }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ status: null, retryAfter: null, error: `timed out after ${input.timeoutMs} ms` });
    }, input.timeoutMs);
    const connectTimeoutMs = Math.min(input.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, input.timeoutMs);
    const connectTimer = setTimeout(() => {
      request.destroy();
      finish({ status: null, retryAfter: null, error: `could not connect within ${connectTimeoutMs} ms` });
    }, connectTimeoutMs);
    request.on('socket', (socket) => socket.once('connect', () => clearTimeout(connectTimer)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish({ status: null, retryAfter: null, error: `connection failed (${error.code ?? 'error'})` });
    });
    request.end(input.body);
  });
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function errorFor(status: number | null): string | null {
  if (status === null || (status >= 200 && status < 300)) return null;
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

/** Milliseconds a Retry-After value (delay-seconds or HTTP-date) asks for, or null if unusable. */
export function retryAfterMs(value: string | null, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}
