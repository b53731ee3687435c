import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { parseDatabaseUrl } from '../platform/db/database-url.ts';
import { CliFailure } from './errors.ts';

/**
 * Which store a command used, on one line of stderr: the DATA_DIR path of the embedded store, or
 * PostgreSQL's host(s) and database (never the user's password: the URL is not printed, only its
 * parts). Someone whose keys "do not work" most often ran the CLI in another directory or without
 * the DATABASE_URL the server has; this line shows it at once.
 */
export function storeLine(config: Config, heldBy?: { pid: number }): string {
  const held = heldBy ? `, held by the running server (pid ${heldBy.pid})` : '';
  if (!config.databaseUrl)
    return `consent-service: store: embedded, in ${config.dataDir} (DATA_DIR)${held}\n`;
  const target = parseDatabaseUrl(config.databaseUrl);
  const hosts = target.hosts
    .map(({ host, port }) => (host === '' ? 'the local socket' : `${host}:${port}`))
    .join(', ');
  const database = target.database === '' ? 'the default database' : `database "${target.database}"`;
  return `consent-service: store: PostgreSQL, ${database} on ${hosts} (DATABASE_URL)\n`;
}

/** A command that needs a store found none where it looked; it created none. */
export class NoStoreError extends CliFailure {}

/**
 * Throws unless the embedded store exists at DATA_DIR. Commands that only use a store (members,
 * keys, orgs, ledger, init) call it before anything touches DATA_DIR: run in the wrong directory,
 * they would otherwise create an empty store there and report "no organization", sending the
 * person to look for a mistake in their ids.
 */
export function assertEmbeddedStoreExists(config: Config): void {
  if (config.databaseUrl) return;
  if (fs.existsSync(path.join(config.dataDir, 'pgdata'))) return;
  throw new NoStoreError(
    `no store at ${config.dataDir}: start the service (npm start) or set DATA_DIR / DATABASE_URL`,
  );
}
