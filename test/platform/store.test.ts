import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError, pgErrorOf } from '../../src/platform/db/pg-errors.ts';
import { serviceSecrets } from '../../src/platform/db/service-secrets.tables.ts';
import type { Store } from '../../src/platform/db/store.ts';
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

describe('ambient transactions', () => {
  it('store.db inside store.tx is the open transaction: a rollback undoes writes made through it', async () => {
    const name = unique();
    await expect(
      store.tx(async () => {
        await store.db.insert(serviceSecrets).values(row(name));
        expect(await exists(name)).toBe(true);
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await exists(name)).toBe(false);
  });

  it('a nested store.tx joins the outer transaction', async () => {
    const name = unique();
    await expect(
      store.tx(async () => {
        await store.tx(async (inner) => {
          await inner.insert(serviceSecrets).values(row(name));
        });
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await exists(name)).toBe(false);
  });

  it('a savepoint undoes only its own writes', async () => {
    const kept = unique();
    const undone = unique();
    await store.tx(async () => {
      await store.db.insert(serviceSecrets).values(row(kept));
      await expect(
        store.savepoint(async () => {
          await store.db.insert(serviceSecrets).values(row(undone));
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
    });
    expect(await exists(kept)).toBe(true);
    expect(await exists(undone)).toBe(false);
  });

  it('outside any transaction, store.db writes commit at once', async () => {
    const name = unique();
    await store.db.insert(serviceSecrets).values(row(name));
    expect(await exists(name)).toBe(true);
  });
});

describe('describeError', () => {
  it('keeps the SQLSTATE and constraint of a database error but none of the values it carried', async () => {
    const name = `psn_${'a'.repeat(60)}${Math.random().toString(16).slice(2, 6)}`;
    await store.db.insert(serviceSecrets).values(row(name));
    const error = await store.db
      .insert(serviceSecrets)
      .values(row(name))
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
