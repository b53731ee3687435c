import fs from 'node:fs';

/**
 * What an interrupted run (Ctrl-C, or SIGINT/SIGTERM to the vitest process) must still undo, found
 * without the test files' help: their afterAll hooks never run when their worker dies. Every process
 * of the run carries the run's mark in its environment (lazy-resources-global.ts sets it before any
 * worker starts, and children inherit it), so a process that left the tree (a PostgreSQL server
 * started through pg_ctl, a child whose worker was killed) is still found; a process started with
 * an environment of its own is found as a descendant of the main process or of a marked one.
 * Linux only (/proc); elsewhere nothing is found and the interrupt stops only what it made itself.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The run's live processes, this one excepted: marked with `mark` (NAME=value), or descended from one. */
export function runProcesses(mark: string, root = process.pid): number[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const parents = new Map<number, number>();
  const found = new Set<number>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === root) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (in parentheses) may hold spaces: the fields after it are the state, then the parent.
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A zombie has exited already; only its parent's wait removes it.
      if (state === 'Z' || state === 'X') continue;
      parents.set(pid, Number(parent));
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark)) found.add(pid);
    } catch {
      // Gone since the listing, or another user's process: not the run's.
    }
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (!found.has(pid) && (parent === root || found.has(parent))) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/**
 * Stops every process of the run: SIGTERM (a server closes its store, nginx and Chromium exit),
 * then SIGKILL for what is still there after `graceMs`. Sent again to newcomers until none is left,
 * since a worker may have started a child meanwhile. Returns the pids that survived both.
 */
export async function stopRunProcesses(mark: string, graceMs = 5000, killMs = 3000): Promise<number[]> {
  for (const [signal, waitMs] of [
    ['SIGTERM', graceMs],
    ['SIGKILL', killMs],
  ] as const) {
    const deadline = Date.now() + waitMs;
    const signalled = new Set<number>();
    for (let pids = runProcesses(mark); ; pids = runProcesses(mark)) {
      if (pids.length === 0) return [];
      if (Date.now() > deadline) break;
      for (const pid of pids) {
        if (signalled.has(pid)) continue;
        signalled.add(pid);
        try {
          process.kill(pid, signal);
        } catch {
          // exited meanwhile
        }
      }
      await sleep(100);
    }
  }
  return runProcesses(mark);
}
