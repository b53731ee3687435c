import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The process's own user + system CPU time in ticks (fields 14 and 15 of /proc/PID/stat). */
function ticksOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // the process exited between listing and reading
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(' '))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU seconds used so far by a process and its descendants (a tsx wrapper runs the server in a child
 * process). Linux only; used to report CPU per request beside throughput, since on a 2-core machine
 * shared with the load generator and PostgreSQL, a server's throughput is bounded by its CPU per request.
 */
export function cpuSecondsOfTree(pid: number): number {
  let ticks = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop() as number;
    ticks += ticksOf(next);
    pending.push(...childrenOf(next));
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * The PostgreSQL server's process (the postmaster) when it runs on this host, found as the parent of
 * a backend of `databaseUrl`; null when it is elsewhere (its /proc entry is not ours to read). Its
 * tree's CPU is every backend's, the WAL writer's and the checkpointer's: on a shared machine, also
 * other clients' work, so it is a bound, not an exact cost.
 */
export async function postmasterPid(databaseUrl: string): Promise<number | null> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const stat = fs.readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(parent) && parent > 1 ? parent : null;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}
