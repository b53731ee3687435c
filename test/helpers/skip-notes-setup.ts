import { afterEach } from 'vitest';

/**
 * A test that skips itself as it runs (`context.skip(reason)`) prints its reason on the file's
 * stderr, as `skipWith` does for a suite skipped before it runs: vitest's default reporter lists a
 * passed or skipped test (and the note beside it) only when its file is slow or failed, so in a
 * whole run the reason was nowhere in the output. Runs before each test file (vitest setupFiles).
 */
afterEach((context) => {
  // The reason given to context.skip: vitest keeps it as the result's note, which its types omit.
  const result = context.task.result as { state?: string; note?: string } | undefined;
  if (result?.state === 'skip')
    console.warn(`skipped: ${context.task.name}: ${result.note ?? 'no reason given'}`);
});
