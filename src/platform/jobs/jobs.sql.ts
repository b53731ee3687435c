/**
 * SQL of the jobs table (jobs.tables.ts) that another statement composes, for a statement that
 * enqueues the jobs of rows it has just written (the consent write's webhook deliveries).
 */

export interface JobInsert {
  kind: string;
  maxAttempts: number;
  /** The relation the jobs are made from, one job per row. */
  from: string;
  /** SQL expressions over `from`'s columns: the job's organization and its payload (jsonb). */
  organizationId: string;
  payload: string;
  /** A timestamptz expression: when the job may run, and its creation time. */
  now: string;
}

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** A CTE `name` inserting one queued job per row of `job.from`; it returns nothing. */
export function jobInsertCte(name: string, job: JobInsert): string {
  return `${name} AS (
  INSERT INTO jobs (id, kind, organization_id, payload, status, attempts, max_attempts, run_at, created_at)
  SELECT new_id('job'), ${literal(job.kind)}, ${job.organizationId},
    ${job.payload},
    'queued', 0, ${Math.trunc(job.maxAttempts)}, ${job.now}, ${job.now}
  FROM ${job.from}
)`;
}
