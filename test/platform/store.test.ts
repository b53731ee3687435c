import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError, pgErrorOf } from '../../src/platform/db/pg-errors.ts';
import { serviceSecrets } from '../../src/platform/db/service-secrets.tables.ts';
import type { Store, Tx } from '../../src/platform/db/store.ts';
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
