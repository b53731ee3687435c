import { type SQL, sql } from 'drizzle-orm';
import { channels } from './channels.tables.ts';

/**
 * Every live channel with how long it keeps its evidence, as a FROM item for the evidence module's
 * retention statements (columns organization_id, channel_id, retention_days). The evidence module
 * decides what expires; this module owns the retention each channel was given.
 */
export const liveChannelRetention: SQL = sql`(select organization_id, id as channel_id, retention_days
  from ${channels} where environment = 'live')`;
