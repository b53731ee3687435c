/**
 * Postgres errors reach us wrapped (drizzle wraps driver errors in `cause`). These helpers find
 * the driver error and read its SQLSTATE and constraint name, never its message text.
 */
export interface PgErrorInfo {
  code: string;
  constraint?: string;
}

export function pgErrorOf(error: unknown): PgErrorInfo | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return {
        code: candidate.code,
        constraint: typeof candidate.constraint === 'string' ? candidate.constraint : undefined,
      };
    }
    current = candidate.cause;
  }
  return null;
}

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const info = pgErrorOf(error);
  return info?.code === '23505' && info.constraint === constraint;
}

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/**
 * True when the database could not be reached, or the server reached cannot take writes now
 * (25006: a standby, or a primary demoted behind a virtual address), as opposed to rejecting a
 * query: the request answers 503 and may be retried, and a host list searches for its server again.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    const code = typeof candidate.code === 'string' ? candidate.code : '';
    // Class 08 (connection exception), 57P01-57P03 (shutdown / cannot connect now), 53300 (too many
    // connections), 25006 (read-only transaction: the server is, or became, a standby), class 28
    // (the credentials refused: a password changed under the service; a setting to fix, not a bug).
    if (
      /^08/.test(code) ||
      /^28/.test(code) ||
      /^57P0[123]$/.test(code) ||
      code === '53300' ||
      code === '25006' ||
      CONNECTION_ERRNOS.has(code)
    )
      return true;
    // pg's own errors for a dead pool carry no code.
    if (
      typeof candidate.message === 'string' &&
      /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(
        candidate.message,
      )
    ) {
      return true;
    }
    current = candidate.cause;
  }
  return false;
}

/** The SQLSTATE of `error` or of an error it wraps (drizzle's `cause`), whatever shape it has. */
function codeOf(error: unknown): string | null {
  return pgErrorOf(error)?.code ?? null;
}

/**
 * True when the server refused the service's credentials (SQLSTATE class 28: a wrong password,
 * 28P01, or a user or authentication method it does not accept, 28000): not an outage, a setting
 * to fix, which is named as such (describeError) and never shown with the password.
 */
export function isCredentialsRefused(error: unknown): boolean {
  return /^28/.test(codeOf(error) ?? '');
}

/** What a connection failure was, in words an operator can act on (never the server's message). */
export function connectionFailure(error: unknown): string {
  const code = codeOf(error);
  if (code === '28P01') return 'refused the password (SQLSTATE 28P01: a wrong password for this user)';
  if (code && /^28/.test(code))
    return `refused the credentials (SQLSTATE ${code}: an unknown user, or pg_hba.conf refuses it)`;
  if (code === '3D000') return 'has no such database (SQLSTATE 3D000)';
  if (code === '53300') return 'has no connection left (SQLSTATE 53300: too many connections)';
  if (code && /^57P0/.test(code)) return `is shutting down or starting (SQLSTATE ${code})`;
  const errno = (findWithErrno(error) as { code?: string } | null)?.code;
  if (errno) return `could not be reached (${errno})`;
  return 'could not be reached (no answer in time)';
}

/**
 * An error described for logs and stored failure reasons without the data it carried. A database
 * error's message (drizzle's "Failed query: … params: …", or the server's detail "Key (x)=(…)")
 * can hold request values such as site keys and pseudonyms, and a query's text can hold values
 * too (a literal), so only its SQLSTATE and the names of the constraint, table and column are
 * kept: never the message, the parameters or the query.
 */
export function describeError(error: unknown): string {
  const pg = pgErrorOf(error);
  if (pg) {
    if (isCredentialsRefused(error)) return `the database ${connectionFailure(error)}`;
    const driver = findWithCode(error) as { table?: unknown; column?: unknown } | null;
    const parts = [`database error ${pg.code}`];
    if (pg.constraint) parts.push(`constraint ${pg.constraint}`);
    if (typeof driver?.table === 'string') parts.push(`table ${driver.table}`);
    if (typeof driver?.column === 'string') parts.push(`column ${driver.column}`);
    return parts.join('; ');
  }
  if (isDatabaseUnavailable(error)) return `database unreachable: the database ${connectionFailure(error)}`;
  // Any other failed query (the transaction guard's refusal, say): its cause, never drizzle's
  // message, which lists the parameters.
  const failed = error as { query?: unknown; cause?: unknown } | null;
  if (typeof failed?.query === 'string' && failed.cause !== undefined) return describeError(failed.cause);
  if (error instanceof Error) return error.message.slice(0, 1000);
  return String(error).slice(0, 1000);
}

/** The first error of the chain with a Node errno code (ECONNREFUSED …), for connectionFailure. */
function findWithErrno(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_ERRNOS.has(code)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function findWithCode(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
