export interface DataDirLock {
  pid: number;
  /** When the holder started (clock ticks since boot, from /proc); null where unknown. */
  start: string | null;
}

export function lockPath(dataDir: string): string;
export function processStart(pid: number): string | null;
export function ownLock(): string;
export function readLock(dataDir: string): DataDirLock | null;
export function lockHeld(lock: DataDirLock | null): boolean;
