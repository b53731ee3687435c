import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCli, type ServiceProcess, startService, waitReady } from '../helpers/processes.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

const started: ServiceProcess[] = [];
afterAll(() => {
  for (const service of started) service.kill();
});

describe('configuration', () => {
  it('a bad configuration lists every bad setting, one line each, and exits non-zero before serving', async () => {
    const result = await runCli(['serve'], {
      PORT: 'eighty',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'loud',
      BASE_URL: 'ftp://example.com',
      WEBHOOK_SECRET_KEY: 'c2hvcnQ=',
    });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([
      'consent-service: PORT must be an integer from 0 to 65535, got "eighty"',
      'consent-service: BASE_URL must be a http: or https: URL, got "ftp://example.com"',
      'consent-service: RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000, got "0"',
      'consent-service: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'consent-service: WEBHOOK_SECRET_KEY must be the base64 of exactly 32 bytes',
    ]);
    // A secret's value is never echoed.
    expect(result.stderr).not.toContain('c2hvcnQ=');
  });

  it('--role api without DATABASE_URL is refused in one line', async () => {
    const result = await runCli(['serve', '--role', 'api'], { DATABASE_URL: undefined });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--role api|worker needs DATABASE_URL');
  });
});

/**
 * Sends a POST whose body arrives in two halves, so the request is in flight (headers read, auth
 * done, body pending) for as long as the test wants. Resolves with the status once answered.
 */
function slowPost(url: string, key: string, body: string) {
  const request = http.request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    request.on('error', reject);
  });
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  return { answered, finish: () => request.end(body.slice(half)) };
}

describe.skipIf(skipWith(postgresOnly()))('graceful shutdown (PostgreSQL only: a child process)', () => {
  it('SIGTERM stops accepting connections, lets the request in flight finish, and exits 0', async () => {
    const bootstrap = await runCli(
      ['bootstrap', '--org', 'Shutdown', '--owner', 'ops@example.com', '--json'],
      {},
    );
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const key: string = JSON.parse(bootstrap.stdout).apiKeys.test;

    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const service = startService(['serve', '--role', 'all'], { PORT: String(port), LOG_LEVEL: 'info' });
    started.push(service);
    await waitReady(baseUrl, service);

    const slow = slowPost(`${baseUrl}/v1/channels`, key, JSON.stringify({ name: 'Created during shutdown' }));
    // Let the server read the headers and start the request before the signal.
    await new Promise((r) => setTimeout(r, 300));
    service.child.kill('SIGTERM');
    const deadline = Date.now() + 5000;
    while (!service.output().includes('shutting down') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(service.output()).toContain('shutting down');
    // New connections are refused while the old request is still open.
    await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();

    slow.finish();
    const answer = await slow.answered;
    expect(answer.status, answer.text).toBe(201);
    expect(JSON.parse(answer.text).data.name).toBe('Created during shutdown');
    expect(await service.exited).toBe(0);
  });
});
