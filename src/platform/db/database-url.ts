/**
 * PostgreSQL connection URLs as libpq writes them, host lists included
 * (`postgres://user:pw@h1:5432,h2:5433/db?target_session_attrs=read-write`), which neither the
 * WHATWG URL parser nor node-postgres accepts: parsed here, then handed to the driver one host at a
 * time. And the one way such a URL is ever printed: redacted, since it may carry a password.
 */

/** libpq's target_session_attrs: which server of a host list a connection must end on. */
export const SESSION_ATTRS = [
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
] as const;
export type SessionAttrs = (typeof SESSION_ATTRS)[number];

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface DatabaseTarget {
  /** The hosts in the order given; one for a plain URL. */
  hosts: DatabaseHost[];
  /** target_session_attrs; `read-write` when a host list does not say (the service writes). */
  sessionAttrs: SessionAttrs;
  /** One single-host URL per entry of `hosts`, for the driver (target_session_attrs removed). */
  hostUrls: string[];
  /** The URL with its password replaced, for messages. */
  redacted: string;
  /** The user name it connects as ('' when it names none: the driver's default), for messages. */
  user: string;
  /** The database it names ('' when it names none: the driver's default, the user's name), for messages. */
  database: string;
}

export class DatabaseUrlError extends Error {}

const REDACTED = '***';

/** `postgres://`, `postgres:/`, `postgres:` or `postgres//` (any scheme): what precedes the user. */
const SCHEME_PREFIX = /^\s*[A-Za-z][A-Za-z0-9+.-]*(?::\/{1,2}|\/\/)/;
const POSTGRES_PREFIX = /^\s*postgres(?:ql)?:/i;
/** libpq's other form: `host=h port=5432 password=secret dbname=consent`. */
const KEY_VALUE_FORM = /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/;

/**
 * `raw` with every password it may carry replaced by `***`. It looks for the text, it does not
 * parse, since the URLs an error message echoes are the malformed ones, and it masks generously:
 * everything between the first `:` of the user information and the last `@` (so a password
 * holding an unencoded `@`, `/`, `?` or `#` is masked whole, whatever the scheme looks like:
 * `postgres//`, `postgres:/`), every `password=` value (a query parameter, or libpq's
 * `key=value` form, quoted or not, up to the next `key=`), and, in a URL with no `@`, a "port"
 * that is not a number (`user:secret/db`, an `@` forgotten).
 */
export function redactDatabaseUrl(raw: string): string {
  let out = KEY_VALUE_FORM.test(raw) ? raw : redactUserInfo(raw);
  // libpq's key=value form: a value runs to the next ` key=` (a quoted one may hold spaces).
  out = out.replace(
    /((?:^|\s)password\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|.*?)(?=\s+[A-Za-z_][A-Za-z0-9_]*\s*=|$)/gi,
    `$1${REDACTED}`,
  );
  // A query parameter: its value runs to the next `&name=` (an unencoded `&` in it is masked too).
  return out.replace(/([?&;]password=).*?(?=&[A-Za-z_][A-Za-z0-9_]*=|#|$)/gi, `$1${REDACTED}`);
}

function redactUserInfo(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at >= 0) {
    const head = raw.slice(0, at);
    const scheme = SCHEME_PREFIX.exec(head)?.[0] ?? POSTGRES_PREFIX.exec(head)?.[0] ?? '';
    const colon = head.indexOf(':', scheme.length);
    return colon < 0 ? raw : `${head.slice(0, colon + 1)}${REDACTED}${raw.slice(at)}`;
  }
  // No user information: a `host:port` whose port is not a number may be `user:password`.
  const scheme = SCHEME_PREFIX.exec(raw)?.[0] ?? POSTGRES_PREFIX.exec(raw)?.[0] ?? '';
  const end = raw.slice(scheme.length).search(/[/?#]/);
  const authorityEnd = end < 0 ? raw.length : scheme.length + end;
  const authority = raw
    .slice(scheme.length, authorityEnd)
    .split(',')
    .map((entry) => (entry.startsWith('[') ? entry : entry.replace(/:(?!\d*$).*$/, `:${REDACTED}`)))
    .join(',');
  return `${raw.slice(0, scheme.length)}${authority}${raw.slice(authorityEnd)}`;
}

function parseHost(entry: string, defaultPort: number): DatabaseHost | null {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]@]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { host: match[1], port };
}

/**
 * The URL's parts, or why it is not one the service reads. Stricter than the WHATWG parser: an
 * `@`, `/`, `?` or `#` that is not percent-encoded in the password makes libpq, node-postgres and
 * the WHATWG parser disagree on where the password ends, so such a URL is refused, never guessed.
 * A reason never quotes a piece of the URL: only the redacted whole is shown, by the caller.
 */
function splitUrl(raw: string) {
  if (KEY_VALUE_FORM.test(raw) && !raw.includes('://'))
    return "is in libpq's key=value form, which the service does not read: write it as a URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE, with any @ / ? # or : in the password percent-encoded (%40 %2F %3F %23 %3A)";
  const scheme = /^(postgres(?:ql)?):\/\//i.exec(raw);
  if (!scheme) {
    return /^postgres(?:ql)?(?::\/?|\/\/)/i.test(raw)
      ? 'must begin with postgres:// (or postgresql://): the ":" or a "/" after the scheme is missing'
      : 'must be a postgres:// or postgresql:// URL';
  }
  const afterScheme = raw.slice(scheme[0].length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd < 0 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd < 0 ? '' : afterScheme.slice(authorityEnd);
  const ats = authority.split('@').length - 1;
  if (ats > 1)
    return 'has more than one @ before its host: percent-encode an @ in the user name or password as %40';
  const [pathPart] = rest.split(/[?#]/);
  if ((ats === 0 && rest.includes('@')) || pathPart.includes('@'))
    return 'has an @ after its host: percent-encode any /, ? or # in the password (%2F, %3F, %23), and any @ (%40)';
  const userinfo = ats === 1 ? authority.slice(0, authority.indexOf('@')) : undefined;
  if (userinfo !== undefined) {
    try {
      decodeURIComponent(userinfo);
    } catch {
      return 'has a malformed percent-escape in its user name or password: a % starts %XX (write % itself as %25)';
    }
  }
  if (rest.includes('#')) return 'has a # (a fragment), which a database URL has no use for';
  const hostList = ats === 1 ? authority.slice(authority.indexOf('@') + 1) : authority;
  const query = rest.includes('?') ? rest.slice(rest.indexOf('?')) : '';
  const dbPath = query ? rest.slice(0, rest.indexOf('?')) : rest;
  return { scheme: scheme[1], userinfo, hostList, dbPath, query };
}

/**
 * Parses a postgres:// URL with one host or a comma-separated list of them. Throws a
 * DatabaseUrlError whose message holds no password (it shows the URL redacted, and no piece of it).
 */
export function parseDatabaseUrl(raw: string): DatabaseTarget {
  const redacted = redactDatabaseUrl(raw);
  const parts = splitUrl(raw);
  if (typeof parts === 'string') throw new DatabaseUrlError(`${parts}, got "${redacted}"`);
  const { scheme, userinfo, hostList, dbPath, query } = parts;
  const entries = hostList.split(',');
  const hosts: DatabaseHost[] = [];
  for (const [i, entry] of entries.entries()) {
    // One empty host is libpq's default (a local socket, or `?host=`): the driver resolves it.
    const host = entries.length === 1 && entry === '' ? { host: '', port: 5432 } : parseHost(entry, 5432);
    if (!host) {
      const which = entries.length === 1 ? 'its host' : `host ${i + 1} of its list`;
      throw new DatabaseUrlError(
        `has a bad host (${which}: write host or host:port, a port from 1 to 65535), in "${redacted}"`,
      );
    }
    hosts.push(host);
  }
  const params = new URLSearchParams(query.slice(1));
  const attrs = params.get('target_session_attrs') ?? (hosts.length > 1 ? 'read-write' : 'any');
  if (!(SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new DatabaseUrlError(
      `target_session_attrs must be one of ${SESSION_ATTRS.join(', ')}${/^[a-z-]{1,20}$/.test(attrs) ? `, got "${attrs}"` : ''}, in "${redacted}"`,
    );
  }
  params.delete('target_session_attrs');
  const kept = params.toString();
  // One host: the URL as given, so the driver sees exactly what the operator wrote.
  const hostUrls =
    hosts.length === 1
      ? [raw]
      : hosts.map(
          ({ host, port }) =>
            `${scheme}://${userinfo === undefined ? '' : `${userinfo}@`}${host}:${port}${dbPath}${kept ? `?${kept}` : ''}`,
        );
  for (const url of hostUrls) {
    try {
      new URL(url);
    } catch {
      throw new DatabaseUrlError(`is not a valid URL: "${redacted}"`);
    }
  }
  const user = userinfo === undefined ? '' : decodeURIComponent(userinfo.split(':')[0]);
  let database = '';
  try {
    database = decodeURIComponent(dbPath.replace(/^\//, ''));
  } catch {
    // A malformed escape in the name: the driver reports it when it connects.
  }
  return { hosts, sessionAttrs: attrs as SessionAttrs, hostUrls, redacted, user, database };
}

/** Whether a server in this state satisfies `attrs` (libpq's rules; prefer-standby's fallback is the caller's). */
export function serverMatches(
  attrs: SessionAttrs,
  server: { inRecovery: boolean; readOnly: boolean },
): boolean {
  switch (attrs) {
    case 'any':
      return true;
    case 'read-write':
      return !server.readOnly;
    case 'read-only':
      return server.readOnly;
    case 'primary':
      return !server.inRecovery;
    case 'standby':
    case 'prefer-standby':
      return server.inRecovery;
  }
}
