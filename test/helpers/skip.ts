/**
 * Why a suite or test does not run here, said where it is skipped: vitest's `skipIf` takes a
 * boolean and prints nothing but a count, so a test skipped on a machine without Chromium, nginx or
 * PostgreSQL looked the same as one that passed. Every `describe.skipIf` / `it.skipIf` in test/
 * goes through `skipWith(reason)`, which prints the reason on the file's stderr and returns
 * whether to skip (test/helpers/skip-reasons.test.ts holds the rule); a test that skips itself as
 * it runs calls `context.skip(reason)`, whose reason skip-notes-setup.ts prints the same way.
 */
export function skipWith(reason: string | null | false | undefined): boolean {
  if (!reason) return false;
  console.warn(`skipped: ${reason}`);
  return true;
}

/** For a suite that needs PostgreSQL: its reason to skip on the embedded store, else null. */
export function postgresOnly(): string | null {
  return process.env.DATABASE_URL
    ? null
    : 'PostgreSQL only: runs with DATABASE_URL set (the PostgreSQL pass of .ci/run)';
}

/** For a suite about the embedded store: its reason to skip on PostgreSQL, else null. */
export function embeddedOnly(): string | null {
  return process.env.DATABASE_URL
    ? 'embedded store only: runs without DATABASE_URL (the embedded pass)'
    : null;
}
