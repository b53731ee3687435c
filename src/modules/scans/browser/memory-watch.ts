import fs from 'node:fs/promises';

export interface BrowserMemory {
  /** Resident anonymous and shared memory of all the browser's processes (their heaps, the pages' data). */
  bytes: number;
  processes: number;
}

interface ProcessRow {
  pid: number;
  ppid: number;
  pgrp: number;
}

async function processRows(): Promise<ProcessRow[]> {
  const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const rows = await Promise.all(
    pids.map(async (pid) => {
      try {
        const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
        // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
        const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { pid: Number(pid), ppid: Number(ppid), pgrp: Number(pgrp) };
      } catch {
        return null; // exited while we looked
      }
    }),
  );
  return rows.filter((row) => row !== null);
}

/** kB of a `Name:   123 kB` line of /proc/<pid>/status. */
function statusKb(status: string, name: string): number {
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
}

/**
 * What the Chromium at `rootPid` holds now, with all its processes (renderers, GPU, utilities, the
 * zygote): those in its process group, which they join, and any descendant that left it. Counted
 * is resident anonymous and shared memory (RssAnon + RssShmem): what the browser and its pages
 * allocated. The program's own files, mapped by every process, are left out: summed over ten
 * processes they would count the same library pages ten times. Linux only (/proc).
 */
export async function browserMemory(rootPid: number): Promise<BrowserMemory> {
  const rows = await processRows();
  const members = new Set<number>([rootPid]);
  for (const row of rows) if (row.pgrp === rootPid) members.add(row.pid);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) {
      if (!members.has(row.pid) && members.has(row.ppid)) {
        members.add(row.pid);
        grew = true;
      }
    }
  }
  let kb = 0;
  let processes = 0;
  for (const pid of members) {
    try {
      const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
      kb += statusKb(status, 'RssAnon') + statusKb(status, 'RssShmem');
      processes++;
    } catch {
      // exited
    }
  }
  return { bytes: kb * 1024, processes };
}

export interface MemoryWatch {
  /** The highest reading so far. */
  readonly peak: BrowserMemory;
  stop(): void;
}

/**
 * Reads the browser's memory every `intervalMs` and calls `onExceeded` once, with the reading,
 * when it passes `limit` in bytes or in processes (the caller kills the browser). A reading that
 * fails (the browser already gone) is skipped.
 */
export function watchMemory(
  rootPid: number,
  limit: BrowserMemory,
  onExceeded: (reading: BrowserMemory) => void,
  intervalMs = 500,
): MemoryWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const peak: BrowserMemory = { bytes: 0, processes: 0 };
  const sample = async () => {
    const reading = await browserMemory(rootPid).catch(() => null);
    if (stopped) return;
    if (reading) {
      peak.bytes = Math.max(peak.bytes, reading.bytes);
      peak.processes = Math.max(peak.processes, reading.processes);
      if (reading.bytes > limit.bytes || reading.processes > limit.processes) {
        stopped = true;
        onExceeded(reading);
        return;
      }
    }
    timer = setTimeout(sample, intervalMs);
  };
  timer = setTimeout(sample, intervalMs);
  return {
    peak,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
