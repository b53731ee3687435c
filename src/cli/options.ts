import { parseArgs } from 'node:util';
import { UsageError } from './errors.ts';
import { nearest } from './nearest.mjs';

/**
 * node:util's parse error ("Unknown option '--x'. To specify a positional argument…") in the CLI's
 * words, naming the known option nearest to an unknown one (`--password` → `--password-stdin`).
 */
export function optionError(error: unknown, known: string[]): UsageError {
  const message = (error as Error).message.split('\n')[0];
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (!unknown) return new UsageError(message);
  const guess = nearest(unknown[1], [...known.map((name) => `--${name}`), '--help']);
  return new UsageError(
    `unknown option "${unknown[1]}" (${guess ? `did you mean ${guess}? ` : ''}see consent-service --help)`,
  );
}

export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true }).values as Record<
      string,
      unknown
    >;
  } catch (error) {
    throw optionError(error, Object.keys(options));
  }
}
