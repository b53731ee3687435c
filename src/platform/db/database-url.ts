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
}

export class DatabaseUrlError extends Error {}

const REDACTED = '***';

/**
 * `raw` with every password it may carry replaced by `***`: the one in the user information
 * (`user:secret@`), and a `password=` query parameter. Works on malformed URLs too (it looks for
 * the text, it does not parse), since those are the ones an error message echoes.
 */
export function redactDatabaseUrl(raw: string): string {
  let out = raw;
  const scheme = out.indexOf('://');
  const at = out.lastIndexOf('@');
  if (scheme >= 0 && at > scheme) {
    const userinfo = out.slice(scheme + 3, at);
    const colon = userinfo.indexOf(':');
    if (colon >= 0)
      out = `${out.slice(0, scheme + 3)}${userinfo.slice(0, colon + 1)}${REDACTED}${out.slice(at)}`;
  }
  return out.replace(/([?&]password=)[^&#]*/gi, `$1${REDACTED}`);
}

const URL_SHAPE = /^(postgres(?:ql)?):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/i;

function parseHost(entry: string, defaultPort: number): DatabaseHost | null {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { host: match[1], port };
}

/**
 * Parses a postgres:// URL with one host or a comma-separated list of them. Throws a
 * DatabaseUrlError whose message holds no password.
 */
export function parseDatabaseUrl(raw: string): DatabaseTarget {
  const redacted = redactDatabaseUrl(raw);
  const shape = URL_SHAPE.exec(raw);
  if (!shape) throw new DatabaseUrlError(`must be a postgres: or postgresql: URL, got "${redacted}"`);
  const [, scheme, userinfo, hostList, dbPath = '', query = ''] = shape;
  const entries = hostList.split(',');
  const hosts: DatabaseHost[] = [];
  for (const entry of entries) {
    // One empty host is libpq's default (a local socket, or `?host=`): the driver resolves it.
    const host = entries.length === 1 && entry === '' ? { host: '', port: 5432 } : parseHost(entry, 5432);
    if (!host) throw new DatabaseUrlError(`has a bad host "${entry}" (host or host:port), in "${redacted}"`);
    hosts.push(host);
  }
  const params = new URLSearchParams(query.slice(1));
  const attrs = params.get('target_session_attrs') ?? (hosts.length > 1 ? 'read-write' : 'any');
  if (!(SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new DatabaseUrlError(
      `target_session_attrs must be one of ${SESSION_ATTRS.join(', ')}, got "${attrs}", in "${redacted}"`,
    );
  }
  params.delete('target_session_attrs');
  const rest = params.toString();
  // One host: the URL as given, so the driver sees exactly what the operator wrote.
  const hostUrls =
    hosts.length === 1
      ? [raw]
      : hosts.map(
          ({ host, port }) =>
            `${scheme}://${userinfo === undefined ? '' : `${userinfo}@`}${host}:${port}${dbPath}${rest ? `?${rest}` : ''}`,
        );
  for (const url of hostUrls) {
    try {
      new URL(url);
    } catch {
      throw new DatabaseUrlError(`is not a valid URL: "${redacted}"`);
    }
  }
  return { hosts, sessionAttrs: attrs as SessionAttrs, hostUrls, redacted };
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
