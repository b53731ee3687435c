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
    // connections), 25006 (read-only transaction: the server is, or became, a standby).
    if (
      /^08/.test(code) ||
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

/**
 * An error described for logs and stored failure reasons without the data it carried. A database
 * error's message (drizzle's "Failed query: … params: …", or the server's detail "Key (x)=(…)")
 * can hold request values such as pseudonyms, so only its SQLSTATE and the names of the constraint,
 * table and column are kept; the query text is parameterized and safe to keep.
 */
export function describeError(error: unknown): string {
  const pg = pgErrorOf(error);
  if (pg) {
    const driver = findWithCode(error) as { table?: unknown; column?: unknown } | null;
    const query = (error as { query?: unknown })?.query;
    const parts = [`database error ${pg.code}`];
    if (pg.constraint) parts.push(`constraint ${pg.constraint}`);
    if (typeof driver?.table === 'string') parts.push(`table ${driver.table}`);
    if (typeof driver?.column === 'string') parts.push(`column ${driver.column}`);
    if (typeof query === 'string') parts.push(`query: ${query.slice(0, 500)}`);
    return parts.join('; ');
  }
  if (isDatabaseUnavailable(error)) return 'database unreachable';
  // Any other failed query (the transaction guard's refusal, say): its cause, never drizzle's
  // message, which lists the parameters.
  const failed = error as { query?: unknown; cause?: unknown } | null;
  if (typeof failed?.query === 'string' && failed.cause !== undefined)
    return `${describeError(failed.cause)}; query: ${failed.query.slice(0, 500)}`;
  if (error instanceof Error) return error.message.slice(0, 1000);
  return String(error).slice(0, 1000);
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
