import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { serviceSecrets } from './service-secrets.tables.ts';
import type { Store } from './store.ts';

/** Returns the named 32-byte secret, creating it once; concurrent first starts agree on one value. */
export async function serviceSecret(store: Store, name: string): Promise<Buffer> {
  await store.tx((tx) =>
    tx
      .insert(serviceSecrets)
      .values({ name, value: randomBytes(32), createdAt: new Date() })
      .onConflictDoNothing(),
  );
  const [row] = await store.db.select().from(serviceSecrets).where(eq(serviceSecrets.name, name));
  return row.value;
}
