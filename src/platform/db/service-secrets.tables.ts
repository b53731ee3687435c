import { customType, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

/** Secrets the service makes for itself (cursor signing, …), shared by every replica through the database. */
export const serviceSecrets = pgTable('service_secrets', {
  name: text('name').primaryKey(),
  value: bytea('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
});
