import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { browserMemory, watchMemory } from '../../src/modules/scans/browser/memory-watch.ts';

/**
 * The memory watch on a stand-in for Chromium: a shell leading its own process group, with
 * children that hold a little memory each (the renderers).
 */
let leader: ChildProcess | undefined;
afterEach(() => {
  if (leader?.pid) process.kill(-leader.pid, 'SIGKILL');
  leader = undefined;
});

function startGroup(children: number): number {
  const holders = Array.from(
    { length: children },
    () => "node -e 'globalThis.b = Buffer.alloc(32e6, 1); setInterval(() => {}, 1000)' &",
  ).join(' ');
  leader = spawn('sh', ['-c', `${holders} wait`], { detached: true, stdio: 'ignore' });
  return leader.pid ?? 0;
}

describe('the browser memory watch', () => {
  it('sums the memory of the whole process group and counts its processes', async () => {
    const pid = startGroup(3);
    await expect.poll(async () => (await browserMemory(pid)).processes, { timeout: 5000 }).toBe(4);
    // Each child holds its 32 MB buffer besides node itself.
    await expect
      .poll(async () => (await browserMemory(pid)).bytes, { timeout: 5000 })
      .toBeGreaterThan(3 * 32e6);
  });

  it('calls back once, with the reading, past the memory or the process limit', async () => {
    const pid = startGroup(2);
    await expect.poll(async () => (await browserMemory(pid)).processes, { timeout: 5000 }).toBe(3);
    const overProcesses: number[] = [];
    const byCount = watchMemory(
      pid,
      { bytes: 1e12, processes: 2 },
      (r) => overProcesses.push(r.processes),
      20,
    );
    const overBytes: number[] = [];
    const byBytes = watchMemory(pid, { bytes: 32e6, processes: 100 }, (r) => overBytes.push(r.bytes), 20);
    // Past the limits once each (the children may still be filling their buffers on a loaded
    // machine), and never again while the watches keep sampling every 20 ms.
    await expect.poll(() => overProcesses.length + overBytes.length, { timeout: 10_000 }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    byCount.stop();
    byBytes.stop();
    expect(overProcesses).toEqual([3]);
    expect(overBytes).toHaveLength(1);
    expect(overBytes[0]).toBeGreaterThan(32e6);
  });

  it('reads nothing of a process that is gone', async () => {
    expect(await browserMemory(2 ** 22 + 12345)).toEqual({ bytes: 0, processes: 0 });
  });
});

// store-independent: the memory watch on sh processes, no service
