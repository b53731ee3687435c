import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type TestApp } from '../helpers/app.ts';
import { createReadySite, postPreferences, preferencesBody, SITES_TEST_ENV } from '../helpers/sites.ts';
import { insertEvents, newSigningKey } from '../ledger/ledger-helpers.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { webhookWorker } from '../webhooks/worker.ts';

/**
 * The design's rule that every tenant-owned row says which environment it belongs to: the schema
 * has the column everywhere, and each write path fills it with its parent's (or owner's) environment.
 */
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({
    env: {
      ...SITES_TEST_ENV,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LEDGER_SIGNING_KEY: newSigningKey().pem,
    },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function rows<T>(query: SQL): Promise<T[]> {
  return ((await rawSql(t.store).execute(query)) as unknown as { rows: T[] }).rows;
}

/** Organization-wide by nature, so without an environment: see the comment in the test. */
const ORGANIZATION_WIDE = ['jobs', 'members'];

describe('environment on tenant-owned tables', () => {
  it('every table keyed by organization carries a NOT NULL environment', async () => {
    const tables = await rows<{ table_name: string; has_environment: boolean }>(sql`
      select table_name,
        bool_or(column_name = 'environment' and is_nullable = 'NO') as has_environment
      from information_schema.columns
      where table_schema = 'public'
      group by table_name
      having bool_or(column_name = 'organization_id')`);
    expect(tables.length).toBeGreaterThan(20);
    // A member works in both environments (the console session says which one it acts in); a job's
    // organization_id is a label for metrics, not a key.
    const missing = tables
      .filter((table) => !table.has_environment && !ORGANIZATION_WIDE.includes(table.table_name))
      .map((table) => table.table_name);
    expect(missing).toEqual([]);
  });

  it("each write path stores its parent's environment", { timeout: 120_000 }, async () => {
    const org = await t.tenant();
    // Test environment: live webhook destinations must use https, which the local receiver is not.
    const key = org.testKey;
    const destination = await t.http.post('/v1/webhook-destinations', { key, body: { url: receiver.url } });
    expect(destination.status, destination.text).toBe(201);
    // A channel with purposes, origins and config versions.
    const site = await createReadySite(t, key);
    const technology = await t.http.post(`/v1/channels/${site.channelId}/technologies`, {
      key,
      body: { name: 'Tag manager' },
      headers: { 'idempotency-key': 'tech-1' },
    });
    expect(technology.status, technology.text).toBe(201);
    const consent = await postPreferences(t, site.siteKey, preferencesBody(site), {
      idempotencyKey: 'pref-1',
    });
    expect(consent.status, consent.text).toBe(201);
    // A live request beside them: its rows must not say test.
    const liveChannel = await t.http.post('/v1/channels', {
      key: org.liveKey,
      body: { name: 'Production' },
      headers: { 'idempotency-key': 'chan-1' },
    });
    expect(liveChannel.status, liveChannel.text).toBe(201);
    // The webhook attempts of the channel events, and a log of more than one block (16 leaves) so
    // that perfect subtrees are stored as nodes.
    await webhookWorker(t).runDue();
    const scope = { organizationId: org.organizationId, environment: 'test' as const };
    await insertEvents(t.store, scope, 20, { channelId: site.channelId });
    await t.app.services.ledger.sealer.sealLog(scope);

    const environments = async (table: string, where = sql``) =>
      rows<{ environment: string }>(sql`
        select distinct environment from ${sql.identifier(table)}
        where organization_id = ${org.organizationId} ${where} order by environment`);
    const ofSite = sql`and channel_id = ${site.channelId}`;
    for (const table of ['purposes', 'technologies', 'origins', 'channel_config_versions']) {
      expect(await environments(table, ofSite), table).toEqual([{ environment: 'test' }]);
    }
    const ofLiveChannel = sql`and channel_id = ${liveChannel.body.data.id}`;
    expect(await environments('channel_config_versions', ofLiveChannel)).toEqual([{ environment: 'live' }]);
    for (const table of ['webhook_attempts', 'ledger_leaves', 'ledger_nodes', 'ledger_tree_heads']) {
      expect(await environments(table), table).toEqual([{ environment: 'test' }]);
    }
    const keyOf = (idempotencyKey: string) => sql`and key = ${idempotencyKey}`;
    expect(await environments('idempotency_keys', keyOf('tech-1'))).toEqual([{ environment: 'test' }]);
    expect(await environments('idempotency_keys', keyOf('pref-1'))).toEqual([{ environment: 'test' }]);
    expect(await environments('idempotency_keys', keyOf('chan-1'))).toEqual([{ environment: 'live' }]);
  });
});
