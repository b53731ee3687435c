import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';

/**
 * Live (not zombie) processes in the browser's process group: Chromium's renderers, GPU and
 * utility processes join its group, so an empty group means nothing of this scan's browser runs.
 * By group rather than by name: other test files may run Chromium at the same time.
 */
export function liveInGroup(pgid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=']).toString().trim().split('\n');
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && !stat.startsWith('Z'))
    .map(([pid]) => Number(pid));
}

export async function expectBrowserGone(pid: number) {
  expect(pid).toBeGreaterThan(0);
  await expect.poll(() => liveInGroup(pid), { timeout: 3000, interval: 100 }).toEqual([]);
}
