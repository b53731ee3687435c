import pg from 'pg';

/**
 * The pools' client: a connection that runs named statements with one generic plan
 * (`plan_cache_mode = force_generic_plan`), set once as it connects, before the pool hands it out.
 *
 * Why: the named statements are the hot ones (the consent write, the unfiltered evidence page and
 * its next pages, the channel list). Left to choose, PostgreSQL plans such a page again on every
 * call, over every evidence partition: about 2 of its 3 ms at 1 million events
 * (bench/evidence-reads.ts). The generic plan prunes the partitions at run time instead. A query
 * whose best plan depends on its values is left unnamed, and an unnamed statement is always
 * planned with them.
 *
 * Set with a query, not the `options` startup parameter, because PgBouncer refuses that parameter
 * unless configured to ignore it. Behind PgBouncer in transaction mode the setting stays with the
 * server connection it was sent on, so some named statements may be planned as PostgreSQL chooses:
 * slower pages, never different answers.
 */
export class GenericPlanClient extends pg.Client {
  // pg-pool connects with a callback; other callers await the promise.
  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, client: pg.Client) => void)): void;
  override connect(
    callback?: ((err: Error) => void) | ((err: null, client: pg.Client) => void),
  ): Promise<pg.Client> | void {
    const ready = super
      .connect()
      .then(() => super.query('SET plan_cache_mode = force_generic_plan'))
      .then(() => this as pg.Client);
    if (!callback) return ready;
    const done = callback as (err: Error | null, client?: pg.Client) => void;
    ready.then(
      (client) => done(null, client),
      (error: Error) => done(error),
    );
  }
}
