import { ConfigError } from '../config.ts';
import { OrganizationError } from '../modules/organizations/organizations.service.ts';
import { NoServerFoundError } from '../platform/db/host-list-pool.ts';
import {
  connectionFailure,
  describeError as describeDatabaseError,
  isDatabaseUnavailable,
  pgErrorOf,
} from '../platform/db/pg-errors.ts';
import { DataDirInUseError } from '../platform/db/store.ts';
import { AppError } from '../platform/http/errors.ts';
import { stackFrames } from '../platform/http/logging.ts';

/** A mistake in how the command was called; printed on one line, exit code 2. */
export class UsageError extends Error {}

/** A failure the person at the terminal can act on (a taken port, a missing file): one line, exit 1. */
export class CliFailure extends Error {}

/**
 * What the CLI prints for an error and its exit code: 2 for a usage or configuration error, 1 for a
 * failure. Known failures are one line each; anything else keeps its stack (it is a bug). The
 * direct CLI and the server's control socket both answer with this.
 */
export function describeError(error: unknown): { exitCode: 1 | 2; stderr: string; unexpected?: true } {
  const lines = (messages: string[]) => messages.map((line) => `consent-service: ${line}\n`).join('');
  if (error instanceof UsageError) return { exitCode: 2, stderr: lines([error.message]) };
  // A ConfigError lists every bad setting, one per line: each line gets the prefix.
  if (error instanceof ConfigError) return { exitCode: 2, stderr: lines(error.message.split('\n')) };
  if (error instanceof CliFailure || error instanceof OrganizationError || error instanceof DataDirInUseError)
    return { exitCode: 1, stderr: lines([error.message]) };
  if (error instanceof AppError) return { exitCode: 1, stderr: lines([`${error.code}: ${error.detail}`]) };
  if (error instanceof NoServerFoundError) return { exitCode: 1, stderr: lines([error.message]) };
  if (isDatabaseUnavailable(error))
    return { exitCode: 1, stderr: lines([`the database (DATABASE_URL) ${connectionFailure(error)}`]) };
  // A failed query: its description and frames, never its message (drizzle's lists the parameters).
  if (pgErrorOf(error) || typeof (error as { query?: unknown } | null)?.query === 'string') {
    const frames = stackFrames(error);
    return {
      exitCode: 1,
      stderr: lines([describeDatabaseError(error)]) + (frames ? `${frames}\n` : ''),
      unexpected: true,
    };
  }
  return { exitCode: 1, stderr: lines([(error as Error)?.stack ?? String(error)]), unexpected: true };
}
