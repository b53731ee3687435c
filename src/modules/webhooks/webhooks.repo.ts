import { and, asc, eq, isNull, type SQL } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { insertRows } from '../../platform/db/bulk-insert.ts';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { webhookAttempts, webhookDeliveries, webhookDestinations, webhookEvents } from './webhooks.tables.ts';

export type DestinationRow = typeof webhookDestinations.$inferSelect;
export type EventRow = typeof webhookEvents.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export type DestinationUpdate = Partial<
  Omit<DestinationRow, 'organizationId' | 'id' | 'environment' | 'createdAt'>
>;
export type DeliveryUpdate = Partial<
  Omit<
    DeliveryRow,
    'organizationId' | 'id' | 'environment' | 'destinationId' | 'eventId' | 'eventType' | 'createdAt'
  >
>;

export interface DeliveryFilters {
  destinationId?: string;
  status?: DeliveryRow['status'];
  eventType?: string;
}

const destinationIs = (organizationId: string, environment: Environment, id: string) =>
  and(
    eq(webhookDestinations.organizationId, organizationId),
    eq(webhookDestinations.environment, environment),
    eq(webhookDestinations.id, id),
  );

export const destinationsRepo = {
  async insert(tx: Tx, row: DestinationRow): Promise<void> {
    await tx.insert(webhookDestinations).values(row);
  },

  async find(db: Db, organizationId: string, environment: Environment, id: string) {
    const [row] = await db
      .select()
      .from(webhookDestinations)
      .where(destinationIs(organizationId, environment, id));
    return row as DestinationRow | undefined;
  },

  async findForUpdate(tx: Tx, organizationId: string, environment: Environment, id: string) {
    const [row] = await tx
      .select()
      .from(webhookDestinations)
      .where(destinationIs(organizationId, environment, id))
      .for('update');
    return row as DestinationRow | undefined;
  },

  list(
    db: Db,
    organizationId: string,
    environment: Environment,
    limit: number,
    after: CursorPosition | null,
  ) {
    return keysetList(db, webhookDestinations, {
      where: [
        eq(webhookDestinations.organizationId, organizationId),
        eq(webhookDestinations.environment, environment),
      ],
      limit,
      after,
    });
  },

  /** Enabled destinations of an organization and environment (the event dispatcher's fan-out). */
  enabled(db: Db, organizationId: string, environment: Environment): Promise<DestinationRow[]> {
    return db
      .select()
      .from(webhookDestinations)
      .where(
        and(
          eq(webhookDestinations.organizationId, organizationId),
          eq(webhookDestinations.environment, environment),
          eq(webhookDestinations.status, 'enabled'),
        ),
      );
  },

  async update(tx: Tx, row: Pick<DestinationRow, 'organizationId' | 'id'>, changes: DestinationUpdate) {
    const [updated] = await tx
      .update(webhookDestinations)
      .set(changes)
      .where(
        and(eq(webhookDestinations.organizationId, row.organizationId), eq(webhookDestinations.id, row.id)),
      )
      .returning();
    return updated as DestinationRow;
  },
};

export const eventsRepo = {
  insertMany(tx: Tx, rows: EventRow[]): Promise<void> {
    return insertRows(tx, webhookEvents, rows);
  },

  async find(db: Db, organizationId: string, id: string) {
    const [row] = await db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.organizationId, organizationId), eq(webhookEvents.id, id)));
    return row as EventRow | undefined;
  },
};

const deliveryIs = (organizationId: string, id: string, environment: Environment | undefined) => {
  const conditions: SQL[] = [
    eq(webhookDeliveries.organizationId, organizationId),
    eq(webhookDeliveries.id, id),
  ];
  if (environment) conditions.push(eq(webhookDeliveries.environment, environment));
  return and(...conditions);
};

export const deliveriesRepo = {
  insertMany(tx: Tx, rows: DeliveryRow[]): Promise<void> {
    return insertRows(tx, webhookDeliveries, rows);
  },

  async find(db: Db, organizationId: string, id: string, options: { environment?: Environment } = {}) {
    const [row] = await db
      .select()
      .from(webhookDeliveries)
      .where(deliveryIs(organizationId, id, options.environment));
    return row as DeliveryRow | undefined;
  },

  async findForUpdate(
    tx: Tx,
    organizationId: string,
    id: string,
    options: { environment?: Environment } = {},
  ) {
    const [row] = await tx
      .select()
      .from(webhookDeliveries)
      .where(deliveryIs(organizationId, id, options.environment))
      .for('update');
    return row as DeliveryRow | undefined;
  },

  list(
    db: Db,
    organizationId: string,
    environment: Environment,
    filters: DeliveryFilters,
    limit: number,
    after: CursorPosition | null,
  ): Promise<DeliveryRow[]> {
    return keysetList(db, webhookDeliveries, {
      where: [
        eq(webhookDeliveries.organizationId, organizationId),
        eq(webhookDeliveries.environment, environment),
        filters.destinationId ? eq(webhookDeliveries.destinationId, filters.destinationId) : undefined,
        filters.status ? eq(webhookDeliveries.status, filters.status) : undefined,
        filters.eventType ? eq(webhookDeliveries.eventType, filters.eventType) : undefined,
      ],
      limit,
      after,
    });
  },

  async update(tx: Tx, row: Pick<DeliveryRow, 'organizationId' | 'id'>, changes: DeliveryUpdate) {
    const [updated] = await tx
      .update(webhookDeliveries)
      .set(changes)
      .where(and(eq(webhookDeliveries.organizationId, row.organizationId), eq(webhookDeliveries.id, row.id)))
      .returning();
    return updated as DeliveryRow;
  },

  /** Pending deliveries of a destination that were parked while it was disabled; resumes them now. */
  resumeParked(tx: Tx, organizationId: string, destinationId: string, now: Date): Promise<DeliveryRow[]> {
    return tx
      .update(webhookDeliveries)
      .set({ nextAttemptAt: now })
      .where(
        and(
          eq(webhookDeliveries.organizationId, organizationId),
          eq(webhookDeliveries.destinationId, destinationId),
          eq(webhookDeliveries.status, 'pending'),
          isNull(webhookDeliveries.nextAttemptAt),
        ),
      )
      .returning();
  },
};

export const attemptsRepo = {
  async insert(tx: Tx, row: AttemptRow): Promise<void> {
    await tx.insert(webhookAttempts).values(row);
  },

  ofDelivery(db: Db, organizationId: string, deliveryId: string): Promise<AttemptRow[]> {
    return db
      .select()
      .from(webhookAttempts)
      .where(
        and(eq(webhookAttempts.organizationId, organizationId), eq(webhookAttempts.deliveryId, deliveryId)),
      )
      .orderBy(asc(webhookAttempts.number));
  },
};
