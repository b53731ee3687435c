import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { freePort, runCli } from '../helpers/processes.ts';

/**
 * A database password never reaches a log, a setting's echo or an error message:
 * the real CLI, started with each kind of bad URL that carries one, must not print it.
 */
const PASSWORD = 'S3cret-pw-4e1f';

describe('a database password is never printed', () => {
  const malformed: Array<[string, string]> = [
    ['DATABASE_URL', `postgres://app:${PASSWORD}@db.example:notaport/consent`],
    ['DATABASE_URL', `postgres://app:${PASSWORD}@h1:5432,h2:99999/consent?target_session_attrs=read-write`],
    ['DATABASE_URL', `postgres://app:${PASSWORD}@h1,h2/consent?target_session_attrs=sometimes`],
    ['DATABASE_URL', `mysql://app:${PASSWORD}@db.example/consent`],
    ['DATABASE_URL', `postgres://app@db.example:x/consent?password=${PASSWORD}`],
    ['REDIS_URL', `redis://app:${PASSWORD}@cache.example:notaport`],
  ];
  for (const [name, value] of malformed) {
    it(`a malformed ${name} is named, its password is not: ${value.replace(PASSWORD, '…')}`, async () => {
      const env: Record<string, string | undefined> = { DATABASE_URL: undefined, [name]: value };
      const result = await runCli(['migrate'], env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(name);
      expect(result.stderr).not.toContain(PASSWORD);
      expect(result.stderr).toContain('***');
    });
  }

  // The shapes that once printed the password: each piece of it (split at the character that
  // breaks the URL) must be absent, for `serve` as an operator starts it, on either setting.
  const shapes: Array<[string, string]> = [
    ['a missing ":" after the scheme', 'postgres//app:Hx7qKp9zWm@db.example/consent'],
    ['postgres:/ (one slash)', 'postgres:/app:Hx7qKp9zWm@db.example/consent'],
    ["libpq's key=value form", 'host=db.example password=Hx7qKp9zWm dbname=consent'],
    ['an unencoded "/" in the password', 'postgres://app:Hx7q/Kp9zWm@db.example/consent'],
    ['an unencoded "?" in the password', 'postgres://app:Hx7q?Kp9zWm@db.example/consent'],
    ['an unencoded "@" in the password', 'postgres://app:Hx7q@Kp9zWm@db.example/consent'],
  ];
  // One process for two shapes: the configuration error lists every bad setting at once.
  for (let i = 0; i < shapes.length; i += 2) {
    const [[primaryShape, primaryUrl], [readShape, readUrl]] = [shapes[i], shapes[i + 1]];
    it(`serve exits 2 naming both settings, no piece of either password: ${primaryShape}; ${readShape}`, async () => {
      const result = await runCli(['serve'], {
        DATABASE_URL: primaryUrl,
        DATABASE_READ_URL: readUrl,
        PORT: String(await freePort()),
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^consent-service: DATABASE_URL /m);
      expect(result.stderr).toMatch(/^consent-service: DATABASE_READ_URL /m);
      for (const piece of ['Hx7qKp9zWm', 'Hx7q', 'Kp9zWm']) expect(result.stderr).not.toContain(piece);
    });
  }

  it('a malformed DATABASE_READ_URL is named, its password is not', async () => {
    const result = await runCli(['migrate'], {
      DATABASE_URL: `postgres://app:${PASSWORD}@127.0.0.1:1/consent`,
      DATABASE_READ_URL: `postgres://reader:${PASSWORD}@replica:port/consent`,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('DATABASE_READ_URL');
    expect(result.stderr).not.toContain(PASSWORD);
  });

  it('a server that cannot be reached is reported without the password', async () => {
    const port = await freePort();
    for (const url of [
      `postgres://app:${PASSWORD}@127.0.0.1:${port}/consent`,
      `postgres://app:${PASSWORD}@127.0.0.1:${port},127.0.0.1:${port}/consent?target_session_attrs=read-write`,
    ]) {
      const result = await runCli(['migrate'], { DATABASE_URL: url });
      expect(result.code, result.stderr).not.toBe(0);
      expect(result.stderr.length).toBeGreaterThan(0);
      expect(result.stderr).not.toContain(PASSWORD);
    }
  });
});

describe('DATABASE_URL with a host list', () => {
  it('is accepted, with or without ports and target_session_attrs', () => {
    for (const url of [
      'postgres://app:pw@h1:5432,h2:5433/consent?target_session_attrs=read-write',
      'postgresql://app:pw@h1,h2,[::1]:5434/consent',
      'postgres://app:pw@h1:5432,h2:5433/consent?target_session_attrs=primary&sslmode=disable',
    ]) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });

  it('DATABASE_READ_URL needs DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://r@replica/consent' })).toThrow(ConfigError);
  });
});
