// Plain JavaScript: the CLI's client reads the lock before tsx loads (src/cli/control-client.mjs),
// and the store takes it (store.ts lockDataDir).
import fs from 'node:fs';
import path from 'node:path';

/** The lock file of the embedded store, in DATA_DIR. */
export const lockPath = (dataDir) => path.join(dataDir, 'consent-service.lock');

/**
 * When process `pid` started, as the kernel counts it (clock ticks since boot, field 22 of
 * /proc/<pid>/stat); null where there is no /proc (not Linux) or no such process. A PID is reused
 * once its process is gone, but never by a process that started at the same tick.
 */
export function processStart(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

/** What this process writes into the lock: its PID and when it started. */
export function ownLock() {
  return JSON.stringify({ pid: process.pid, start: processStart(process.pid) });
}

/**
 * The holder a lock file names: `{pid, start}` (start null where unknown), or null when the file is
 * missing or unreadable. A lock written by an older version holds the PID alone.
 */
export function readLock(dataDir) {
  let text;
  try {
    text = fs.readFileSync(lockPath(dataDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed === 'number') return { pid: parsed, start: null };
    return { pid: Number(parsed?.pid), start: typeof parsed?.start === 'string' ? parsed.start : null };
  } catch {
    return { pid: Number(text), start: null };
  }
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Whether the lock's holder is a live process other than this one. A PID alone is not enough: after
 * a crash and a reboot (or long enough) another process may carry it, and would block every start.
 * So the holder must also have started when the lock says; a lock without a start time (an older
 * version's, or a system without /proc) is trusted on its PID alone.
 */
export function lockHeld(lock) {
  if (!lock || !Number.isInteger(lock.pid) || lock.pid <= 0 || lock.pid === process.pid) return false;
  if (!pidAlive(lock.pid)) return false;
  if (lock.start === null) return true;
  const start = processStart(lock.pid);
  return start === null || start === lock.start;
}
