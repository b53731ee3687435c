import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../src/config.ts';
import {
  DatabaseUrlError,
  parseDatabaseUrl,
  redactDatabaseUrl,
} from '../../../../src/platform/db/database-url.ts';

/**
 * A database URL is never shown with its password, however it is malformed: the redaction, the
 * parser's refusals and the setting's error message, one row per shape an operator may write.
 * Each password is split where it holds the character that breaks the URL, so a row also fails
 * when only part of it is shown (the part before a `/`, say, taken for a host:port).
 */
const SHAPES: Array<{ shape: string; url: (pw: string) => string; password: string }> = [
  {
    shape: 'a missing ":" after the scheme',
    url: (pw) => `postgres//app:${pw}@db.example/consent`,
    password: 'Hx7qKp9zWm',
  },
  {
    shape: 'a single "/" after the scheme',
    url: (pw) => `postgres:/app:${pw}@db.example/consent`,
    password: 'Hx7qKp9zWm',
  },
  { shape: 'no "//" at all', url: (pw) => `postgresql:app:${pw}@db.example/consent`, password: 'Hx7qKp9zWm' },
  {
    shape: "libpq's key=value form",
    url: (pw) => `host=db.example port=5432 password=${pw} dbname=consent`,
    password: 'Hx7qKp9zWm',
  },
  {
    shape: 'key=value, quoted with a space',
    url: (pw) => `host=db.example password='${pw}' dbname=consent`,
    password: 'Hx7q Kp9zWm',
  },
  {
    shape: 'an unencoded "/" in the password',
    url: (pw) => `postgres://app:${pw}@db.example/consent`,
    password: 'Hx7q/Kp9zWm',
  },
  {
    shape: 'an unencoded "?" in the password',
    url: (pw) => `postgres://app:${pw}@db.example/consent`,
    password: 'Hx7q?Kp9zWm',
  },
  {
    shape: 'an unencoded "#" in the password',
    url: (pw) => `postgres://app:${pw}@db.example/consent`,
    password: 'Hx7q#Kp9zWm',
  },
  {
    shape: 'an unencoded "@" in the password',
    url: (pw) => `postgres://app:${pw}@db.example/consent`,
    password: 'Hx7q@Kp9zWm',
  },
  {
    shape: 'an unencoded "@" in a host list',
    url: (pw) => `postgres://app:${pw}@h1:5432,h2/consent`,
    password: 'Hx7q@Kp9zWm',
  },
  {
    shape: 'a "/" that reads as a port',
    url: (pw) => `postgres://app:${pw}@db.example/consent`,
    password: '5432/Kp9zWm',
  },
  { shape: 'the "@" forgotten', url: (pw) => `postgres://app:${pw}/consent`, password: 'Hx7qKp9zWm' },
  {
    shape: 'a bad percent-escape',
    url: (pw) => `postgres://app:${pw}@db.example/consent`,
    password: 'Hx7q%zzKp9zWm',
  },
  {
    shape: 'a password parameter',
    url: (pw) => `postgres://app@db.example:x/consent?password=${pw}`,
    password: 'Hx7qKp9zWm',
  },
  {
    shape: 'a password parameter with "&"',
    url: (pw) => `postgres://app@db.example:x/consent?password=${pw}`,
    password: 'Hx7q&Kp9zWm',
  },
  {
    shape: 'a bad port in a host list',
    url: (pw) => `postgres://app:${pw}@h1:5432,h2:99999/consent`,
    password: 'Hx7qKp9zWm',
  },
];

/** The password and each piece of it of 4 characters or more (split at what is not a letter or digit). */
function pieces(password: string): string[] {
  return [password, ...password.split(/[^A-Za-z0-9]/).filter((piece) => piece.length >= 4)];
}

function configError(url: string, setting: 'DATABASE_URL' | 'DATABASE_READ_URL'): string {
  const env =
    setting === 'DATABASE_URL'
      ? { DATABASE_URL: url }
      : { DATABASE_URL: 'postgres://app@db.example/consent', DATABASE_READ_URL: url };
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`${setting} was accepted`);
}

describe('a malformed database URL is refused without its password', () => {
  for (const { shape, url, password } of SHAPES) {
    it(shape, () => {
      const raw = url(password);
      const redacted = redactDatabaseUrl(raw);
      let refusal = '';
      try {
        parseDatabaseUrl(raw);
      } catch (error) {
        expect(error).toBeInstanceOf(DatabaseUrlError);
        refusal = (error as Error).message;
      }
      expect(refusal, 'the URL must be refused: the drivers disagree on where its password ends').not.toBe(
        '',
      );
      const shown = [
        redacted,
        refusal,
        configError(raw, 'DATABASE_URL'),
        configError(raw, 'DATABASE_READ_URL'),
      ];
      for (const text of shown) for (const piece of pieces(password)) expect(text).not.toContain(piece);
      expect(redacted).toContain('***');
      expect(shown[2]).toMatch(/^DATABASE_URL /);
      expect(shown[3]).toMatch(/^DATABASE_READ_URL /);
    });
  }

  it('a well-formed URL is accepted and shown with its password masked', () => {
    const raw = 'postgres://app:Hx7q%2FKp9z%40Wm@h1:5432,h2/consent?target_session_attrs=read-write';
    const target = parseDatabaseUrl(raw);
    expect(target.hosts).toEqual([
      { host: 'h1', port: 5432 },
      { host: 'h2', port: 5432 },
    ]);
    expect(target.user).toBe('app');
    expect(target.redacted).toBe('postgres://app:***@h1:5432,h2/consent?target_session_attrs=read-write');
    expect(loadConfig({ DATABASE_URL: raw }).databaseUrl).toBe(raw);
  });

  it('whatever the text around it, a password after "user:" never survives redaction', () => {
    const password = fc.stringMatching(/^[A-Za-z0-9]{6,12}[/?#@&:%][A-Za-z0-9]{6,12}$/);
    const around = fc.constantFrom('postgres://', 'postgres//', 'postgres:/', 'postgresql:', 'pg://', '');
    const after = fc.constantFrom('@db/consent', '@h1,h2:5433/consent?sslmode=require', '@[::1]:5432/db');
    fc.assert(
      fc.property(password, around, after, (pw, scheme, rest) => {
        const text = redactDatabaseUrl(`${scheme}app:${pw}${rest}`);
        return pieces(pw).every((piece) => !text.includes(piece));
      }),
    );
  });
});

// store-independent: URL parsing and redaction, pure functions
