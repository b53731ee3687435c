import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPostgresStore } from '../../src/platform/db/store.ts';
import { download, requestExport } from '../exports/helpers.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  newSubjectId,
  type ReadySite,
  recordConsent,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * DATABASE_READ_URL (issue 45 item 2): evidence lists, consent-state reads and lookups, analytics and
 * exports read there; writes, and reads that must see them (an event by id, keys, channels), use
 * DATABASE_URL. A second database stands in for a replica that has none of this test's writes, so a
 * read that went there shows it; then the same server as both URLs shows everything.
 */
const databaseUrl = process.env.DATABASE_URL;

describe.skipIf(!databaseUrl)(
  'DATABASE_READ_URL (PostgreSQL only: the embedded store has no replicas)',
  () => {
    const readDatabase = `${new URL(databaseUrl ?? 'postgres://x/none').pathname.slice(1)}_replica`;
    const readUrl = (() => {
      const url = new URL(databaseUrl ?? 'postgres://x/none');
      url.pathname = `/${readDatabase}`;
      return url.toString();
    })();
    let admin: pg.Client;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      // A migrated, empty copy: this file's database was cloned from a template before anything was written.
      const template = inject('postgresTemplate')?.template;
      await admin.query(`create database "${readDatabase}" template "${template}"`);
    });
    afterAll(async () => {
      await admin.query(`drop database if exists "${readDatabase}" with (force)`);
      await admin.end();
    });

    async function scenario(url: string) {
      const store = createPostgresStore(databaseUrl!, { max: 5, readUrl: url });
      const t: TestApp = await startTestApp({ store, env: SITES_TEST_ENV });
      const tenant: Tenant = await t.tenant();
      const site: ReadySite = await createReadySite(t, tenant.testKey);
      const subjectId = newSubjectId();
      const event = await recordConsent(t, site, { subjectId });
      const key = tenant.testKey;
      const byId = await t.http.get(`/v1/evidence/${event.id}`, { key });
      const list = await t.http.get(`/v1/evidence?channelId=${site.channelId}`, { key });
      const lookup = await t.http.post('/v1/consent-state/lookups', {
        key,
        body: { channelId: site.channelId, subjectIds: [subjectId] },
      });
      const state = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${subjectId}`, {
        key,
      });
      const requested = await requestExport(t, key, { channelId: site.channelId, format: 'jsonl' });
      await t.worker.runDue();
      const file = await download(t, key, requested.id);
      return { t, store, event, byId, list, lookup, state, file };
    }

    it('the same server as both URLs: every read sees the writes', async () => {
      const { t, store, event, byId, list, lookup, state, file } = await scenario(databaseUrl!);
      try {
        expect(byId.status).toBe(200);
        expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([event.id]);
        expect(lookup.body.data[0].state.purposes.analytics.eventId).toBe(event.id);
        expect(state.status).toBe(200);
        expect(file.text).toContain(event.id);
      } finally {
        await t.close();
        await store.close();
      }
    }, 120_000);

    it('lists, state reads and lookups read the replica; an event by id and the writes use the primary', async () => {
      const { t, store, event, byId, list, lookup, state, file } = await scenario(readUrl);
      try {
        expect(byId.status, byId.text).toBe(200);
        expect(list.status, list.text).toBe(200);
        expect(list.body.data).toEqual([]);
        expect(lookup.status, lookup.text).toBe(200);
        expect(lookup.body.data[0].state).toBeNull();
        expect(state.status).toBe(404);
        // The export read the replica too (a server not in recovery has nothing to catch up).
        expect(file.status).toBe(200);
        expect(file.text).not.toContain(event.id);
      } finally {
        await t.close();
        await store.close();
      }
    }, 120_000);
  },
);
