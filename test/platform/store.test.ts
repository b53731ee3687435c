import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError, pgErrorOf } from '../../src/platform/db/pg-errors.ts';
import { serviceSecrets } from '../../src/platform/db/service-secrets.tables.ts';
import { OpenTransactionError, type Store, type Tx } from '../../src/platform/db/store.ts';
import { openTestStore } from '../helpers/app.ts';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

const row = (name: string) => ({ name, value: Buffer.from('x'), createdAt: new Date() });
const exists = async (name: string) =>
  (await store.db.select().from(serviceSecrets).where(eq(serviceSecrets.name, name))).length === 1;
const unique = () => `test-${Math.random().toString(36).slice(2)}`;

describe('transactions are passed explicitly', () => {
  it('store.tx gives its transaction to fn: a rollback undoes writes made through it', async () => {
    const name = unique();
    await expect(
      store.tx(async (tx) => {
        await tx.insert(serviceSecrets).values(row(name));
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await exists(name)).toBe(false);
  });

  it('a scope inside a transaction reads and writes in it; outside one, each write opens its own', async () => {
    const joined = unique();
    await expect(
      store.tx(async (outer) => {
        const scope = store.scope(outer);
        expect(scope.read).toBe(outer);
        await scope.write((tx) => tx.insert(serviceSecrets).values(row(joined)));
        // The scope's reads see its own uncommitted writes.
        const seen = await scope.read.select().from(serviceSecrets).where(eq(serviceSecrets.name, joined));
        expect(seen).toHaveLength(1);
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await exists(joined)).toBe(false);
    const alone = unique();
    const outside = store.scope(null);
    expect(outside.read).toBe(store.db);
    await outside.write((tx) => tx.insert(serviceSecrets).values(row(alone)));
    expect(await exists(alone)).toBe(true);
  });

  it('a savepoint undoes only its own writes', async () => {
    const kept = unique();
    const undone = unique();
    await store.tx(async (tx) => {
      await tx.insert(serviceSecrets).values(row(kept));
      await expect(
        store.savepoint(tx, async (savepoint) => {
          await savepoint.insert(serviceSecrets).values(row(undone));
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
    });
    expect(await exists(kept)).toBe(true);
    expect(await exists(undone)).toBe(false);
  });

  it("afterCommit hooks run after the commit (a savepoint's with its transaction), never after a rollback", async () => {
    const ran: string[] = [];
    const name = unique();
    await store.tx(async (tx) => {
      await tx.insert(serviceSecrets).values(row(name));
      store.afterCommit(tx, () => ran.push('committed'));
      await store.savepoint(tx, async (savepoint) => {
        store.afterCommit(savepoint, () => ran.push('savepoint'));
      });
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['committed', 'savepoint']);
    await expect(
      store.tx(async (tx) => {
        store.afterCommit(tx, () => ran.push('rolled back'));
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(ran).toEqual(['committed', 'savepoint']);
    store.afterCommit(null, () => ran.push('now'));
    expect(ran.at(-1)).toBe('now');
    // A handle the store did not open is refused, not silently run at once (the types refuse it too).
    expect(() => store.afterCommit(store.db as Tx, () => {})).toThrow(/not a transaction/);
  });

  it('store.db is the pool: it reads what committed transactions wrote, and has no write builders', async () => {
    const name = unique();
    await store.tx((tx) => tx.insert(serviceSecrets).values(row(name)));
    expect(await exists(name)).toBe(true);
    // @ts-expect-error: writes take a Tx; the pool's handle has no insert (nor update, delete).
    expect(typeof store.db.insert).toBe('function');
  });
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** `promise`, or a rejection naming `what` if it has not settled within 2 s (a guard that failed would hang). */
function soon<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still waiting after 2 s`)), 2000);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

describe('the transaction guard (on for both stores under vitest)', () => {
  it('refuses at once a query on store.db from inside an open transaction, naming the call; the transaction goes on', async () => {
    const name = unique();
    await store.tx(async (tx) => {
      await tx.insert(serviceSecrets).values(row(name));
      const refused = await soon(
        store.db
          .select()
          .from(serviceSecrets)
          .where(eq(serviceSecrets.name, name))
          .then(() => null)
          .catch((e: unknown) => e),
        'the read beside the transaction',
      );
      // drizzle reports a failed query with the driver's error as its cause.
      const cause = (refused as Error).cause;
      expect(cause).toBeInstanceOf(OpenTransactionError);
      const message = (cause as Error).message;
      expect(message).toMatch(
        /^store\.db\.(query|connect) \(select .*"service_secrets".*\) called inside an open transaction/,
      );
      expect(message).toContain('use the transaction (tx) handed to this code');
      // The stack leads to the code that made the call; the description logged keeps no parameter.
      expect((cause as Error).stack).toContain('store.test.ts');
      expect(describeError(refused)).toMatch(
        /^store\.db\.\w+ \(select .*\) called inside an open transaction/,
      );
      expect(describeError(refused)).not.toContain(name);
      // The refused query never reached the database: the transaction is intact, and a savepoint works.
      await store.savepoint(tx, async (savepoint) => {
        expect(
          await savepoint.select().from(serviceSecrets).where(eq(serviceSecrets.name, name)),
        ).toHaveLength(1);
      });
    });
    expect(await exists(name)).toBe(true);
  });

  it('refuses a new store.tx, and the raw client, from inside an open transaction', async () => {
    await store.tx(async () => {
      await expect(
        soon(
          store.tx(async () => 1),
          'the nested store.tx',
        ),
      ).rejects.toThrow(/^store\.tx called inside an open transaction/);
      await expect(store.scope(null).write(async () => 1)).rejects.toBeInstanceOf(OpenTransactionError);
      const raw: Promise<unknown> = store.pglite
        ? store.pglite.query('select 1')
        : (store.pool as NonNullable<Store['pool']>).query('select 1');
      await expect(soon(raw, 'the raw query')).rejects.toThrow(
        /^store\.(pglite|pool)\.query \(select 1\) called/,
      );
    });
  });

  it('lets work the transaction started run once it has ended', async () => {
    const name = unique();
    const gate = deferred();
    let later: Promise<boolean> | undefined;
    await store.tx(async (tx) => {
      await tx.insert(serviceSecrets).values(row(name));
      // Started inside the transaction's flow, run after it committed: then the pool is free.
      later = gate.promise.then(() => exists(name));
    });
    gate.resolve();
    expect(await later).toBe(true);
  });

  it("leaves other flows alone: another flow's transaction waits for the open one (PGlite), then succeeds", async () => {
    const first = unique();
    const second = unique();
    const opened = deferred();
    const release = deferred();
    const open = store.tx(async (tx) => {
      await tx.insert(serviceSecrets).values(row(first));
      opened.resolve();
      await release.promise;
    });
    await opened.promise;
    // This test's own flow is outside that transaction: its transaction and reads are not refused.
    const settled: string[] = [];
    const other = store.tx((tx) => tx.insert(serviceSecrets).values(row(second)));
    const read = exists(first);
    void other.then(() => settled.push('transaction'));
    void read.then(() => settled.push('read'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // PGlite runs one statement or transaction at a time: both wait. PostgreSQL runs them at once.
    if (store.kind === 'embedded') expect(settled).toEqual([]);
    release.resolve();
    await open;
    await other;
    // On PGlite the read ran after the commit; on PostgreSQL it may have run before it.
    if (store.kind === 'embedded') expect(await read).toBe(true);
    else expect(typeof (await read)).toBe('boolean');
    expect(await exists(first)).toBe(true);
    expect(await exists(second)).toBe(true);
  });
});

describe('describeError', () => {
  it('keeps the SQLSTATE and constraint of a database error but none of the values it carried', async () => {
    const name = `psn_${'a'.repeat(60)}${Math.random().toString(16).slice(2, 6)}`;
    await store.tx((tx) => tx.insert(serviceSecrets).values(row(name)));
    const error = await store
      .tx((tx) => tx.insert(serviceSecrets).values(row(name)))
      .then(() => null)
      .catch((e: unknown) => e);
    expect(pgErrorOf(error)?.code).toBe('23505');
    // The raw error does carry the value (in drizzle's params or the server's detail)…
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error)) + String(error)).toContain(name);
    // …the description does not.
    const described = describeError(error);
    expect(described).toContain('23505');
    expect(described).toContain('service_secrets_pkey');
    expect(described).not.toContain(name);
  });
});
