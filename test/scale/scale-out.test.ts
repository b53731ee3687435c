import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_JOB } from '../../src/modules/exports/export-job.ts';
import { ATTEMPT_JOB } from '../../src/modules/webhooks/delivery-jobs.ts';
import { createClient, type HttpClient } from '../helpers/http.ts';
import {
  freePort,
  runCli,
  type ServiceProcess,
  startService,
  waitForOutput,
  waitReady,
} from '../helpers/processes.ts';
import { createReadySite, type ReadySite, recordConsent } from '../helpers/sites.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';
import { proofVerifies } from '../ledger/ledger-helpers.ts';
import { verifyConsistencyProof } from '../ledger/rfc9162.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';

/**
 * Two API processes and two worker processes on this file's PostgreSQL database and one Redis,
 * started as an operator would (`serve --role api|worker`), checked from the outside.
 */
const LIMIT = 20;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-scale-'));
const children: ServiceProcess[] = [];
let apis: HttpClient[];
let baseUrls: string[];
let metricsPorts: number[];
const METRICS_TOKEN = randomUUID();
let receiver: Receiver;
let workload: { organizationId: string; key: string };
let limited: { keys: string[] };
let db: pg.Client;

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

describe.skipIf(skipWith(postgresOnly()))(
  'scale-out: 2 API + 2 worker processes (needs PostgreSQL and Redis)',
  () => {
    beforeAll(async () => {
      // Every process shares the keys (secrets at rest, ledger signing) and the export directory.
      const env = {
        REDIS_URL: 'redis://127.0.0.1:6379',
        RATE_LIMIT_REDIS_PREFIX: `scale-${randomUUID()}`,
        // The limit under test is the one all keys of an organization share (a key's own is far above).
        RATE_LIMIT_PER_MINUTE: '100000',
        ORG_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        PUBLIC_RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1,1',
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        LEDGER_SEAL_SECONDS: '1',
        LEDGER_SIGNING_KEY: generateKeyPairSync('ed25519')
          .privateKey.export({ format: 'pem', type: 'pkcs8' })
          .toString(),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        METRICS_TOKEN: METRICS_TOKEN,
      };
      receiver = await startReceiver();
      db = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await db.connect();

      // Migrate once, so four processes do not race to create the schema.
      const migrated = await runCli(['migrate'], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      // The four services start while the CLI bootstraps the organizations (each tsx start takes seconds).
      const ports = await Promise.all([freePort(), freePort()]);
      for (const port of ports)
        children.push(startService(['serve', '--role', 'api'], { ...env, PORT: String(port) }));
      // Workers log at info so the test sees their "ready" line; each serves its metrics on METRICS_PORT.
      metricsPorts = await Promise.all([freePort(), freePort()]);
      for (const port of metricsPorts)
        children.push(
          startService(['serve', '--role', 'worker'], {
            ...env,
            LOG_LEVEL: 'info',
            METRICS_PORT: String(port),
          }),
        );
      const [a, b] = await Promise.all(
        ['Workload', 'Limited'].map((org) =>
          runCli(['bootstrap', '--org', org, '--owner', `${org.toLowerCase()}@example.com`, '--json'], env),
        ),
      );
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      const workloadOrg = JSON.parse(a.stdout);
      workload = { organizationId: workloadOrg.organization.id, key: workloadOrg.apiKeys.test };
      const limitedOrg = JSON.parse(b.stdout);
      const second = await runCli(
        [
          'keys',
          'create',
          '--org',
          limitedOrg.organization.id,
          '--member',
          'limited@example.com',
          '--env',
          'test',
          '--scopes',
          'channels:read',
          '--name',
          'second',
          '--json',
        ],
        env,
      );
      expect(second.code, second.stderr).toBe(0);
      limited = { keys: [limitedOrg.apiKeys.test, JSON.parse(second.stdout).secret] };
      // The workload's organization gets a high override; the other keeps the default of LIMIT.
      const raised = await runCli(
        ['orgs', 'set-limit', '--org', workload.organizationId, '--per-minute', '100000'],
        env,
      );
      expect(raised.code, raised.stderr).toBe(0);
      await Promise.all([
        ...ports.map((port, i) => waitReady(`http://127.0.0.1:${port}`, children[i], 45_000)),
        ...children.slice(2).map((worker) => waitForOutput(worker, 'consent-service ready', 45_000)),
      ]);
      baseUrls = ports.map((port) => `http://127.0.0.1:${port}`);
      apis = baseUrls.map((url) => createClient(url));
    }, 90_000);

    afterAll(async () => {
      for (const child of children) child.kill();
      await Promise.all(children.map((c) => c.exited));
      await receiver?.close();
      await db?.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('the shared rate limit holds: both APIs together never admit more than the limit per window', async () => {
      // Two keys of one organization, each on both APIs: the organization's limit counts them together.
      const results = await Promise.all(
        Array.from({ length: 36 }, (_, i) =>
          apis[i % 2].get('/v1/channels', { key: limited.keys[Math.floor(i / 2) % 2] }),
        ),
      );
      // Windows are aligned on the minute: group by the window each answer counted in.
      const admitted = new Map<string, number>();
      for (const res of results) {
        expect([200, 429]).toContain(res.status);
        const window = res.headers.get('x-ratelimit-reset') as string;
        if (res.status === 200) admitted.set(window, (admitted.get(window) ?? 0) + 1);
        else expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      for (const count of admitted.values()) expect(count).toBeLessThanOrEqual(LIMIT);
      const windows = new Set(results.map((r) => r.headers.get('x-ratelimit-reset')));
      // All in one window (the usual case): exactly the limit got through, on both APIs together.
      if (windows.size === 1) expect(results.filter((r) => r.status === 200)).toHaveLength(LIMIT);
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(LIMIT * windows.size);
    });

    let site: ReadySite;
    const events: Array<{ id: string; receipt: string }> = [];

    it('every job runs once: each webhook event is delivered exactly once with two workers', async () => {
      const destination = await apis[0].post('/v1/webhook-destinations', {
        key: workload.key,
        body: { url: receiver.url, eventTypes: ['channel.created', 'export.succeeded'] },
      });
      expect(destination.status, destination.text).toBe(201);
      // Alternate APIs; createReadySite's channel adds one more channel.created.
      const created = await Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          apis[i % 2].post('/v1/channels', {
            key: workload.key,
            body: {
              name: `Scale ${i}`,
              privacyPolicy: { url: 'https://x.example/p', version: '1', retentionDays: 30 },
            },
          }),
        ),
      );
      for (const res of created) expect(res.status, res.text).toBe(201);
      site = await createReadySite({ http: apis[1], clock: { advance() {} } } as never, workload.key);

      const channelEvents = () => receiver.received.filter((r) => r.payload.type === 'channel.created');
      await until('16 channel.created deliveries', async () => channelEvents().length >= 16);
      // Give a duplicate time to show up: both workers poll every second and retry after 1 s.
      await new Promise((r) => setTimeout(r, 2500));
      const ids = channelEvents().map((r) => r.id);
      expect(ids).toHaveLength(16);
      expect(new Set(ids).size).toBe(16);
      const { rows } = await db.query(
        `select status, count(*)::int as n from jobs where kind = $1 group by status`,
        [ATTEMPT_JOB],
      );
      expect(rows).toEqual([{ status: 'succeeded', n: 16 }]);
      // Each worker counts the attempts it sent: together exactly one per event.
      const sentBy = await Promise.all(
        metricsPorts.map(async (port) => {
          const url = `http://127.0.0.1:${port}/metrics`;
          expect((await fetch(url)).status).toBe(401);
          const text = await (
            await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
          ).text();
          const line = text
            .split('\n')
            .find((l) => l.startsWith('consent_service_webhook_attempts_total{outcome="success"}'));
          return line ? Number(line.split(' ')[1]) : 0;
        }),
      );
      expect(sentBy[0] + sentBy[1]).toBe(16);
    });

    it('exports are not duplicated: three exports each run once, with consistent files', async () => {
      for (let round = 0; round < 3; round++) {
        const recorded = await Promise.all(
          Array.from({ length: 4 }, () => recordConsent({ http: apis[round % 2] } as never, site)),
        );
        events.push(...recorded.map((r) => ({ id: r.id, receipt: r.receipt.hash })));
        await new Promise((r) => setTimeout(r, 1100));
      }
      const requested = await Promise.all(
        [0, 1, 2].map((i) =>
          apis[i % 2].post('/v1/exports', { key: workload.key, body: { format: 'jsonl' } }),
        ),
      );
      const ids = requested.map((res) => {
        expect(res.status, res.text).toBe(202);
        return res.body.data.id as string;
      });
      const done = new Map<string, any>();
      await until('three exports', async () => {
        for (const id of ids) {
          const res = await apis[0].get(`/v1/exports/${id}`, { key: workload.key });
          if (['succeeded', 'failed'].includes(res.body.data.status)) done.set(id, res.body.data);
        }
        return done.size === 3;
      });
      for (const id of ids) {
        const exported = done.get(id);
        expect(exported.status, exported.failureReason).toBe('succeeded');
        expect(exported.rowCount).toBe(events.length);
        // Straight fetch: the test client would parse the NDJSON as one JSON document.
        const file = await fetch(`${baseUrls[1]}/v1/exports/${id}/file`, {
          headers: { authorization: `Bearer ${workload.key}` },
        });
        expect(file.status).toBe(200);
        const text = await file.text();
        expect(createHash('sha256').update(text).digest('hex')).toBe(exported.sha256);
        const lines = text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(lines.map((l) => l.id).sort()).toEqual(events.map((e) => e.id).sort());
      }
      const { rows } = await db.query(
        `select status, attempts, count(*)::int as n from jobs where kind = $1 group by status, attempts`,
        [EXPORT_JOB],
      );
      expect(rows).toEqual([{ status: 'succeeded', attempts: 1, n: 3 }]);
      await until(
        'three export.succeeded deliveries',
        async () => receiver.received.filter((r) => r.payload.type === 'export.succeeded').length >= 3,
      );
      await new Promise((r) => setTimeout(r, 1500));
      const succeeded = receiver.received.filter((r) => r.payload.type === 'export.succeeded');
      expect(succeeded.map((r) => r.payload.data.id).sort()).toEqual([...ids].sort());
    });

    it('the ledger has one sealer per log: heads grow strictly, one root per size, every proof verifies', async () => {
      const proofOf = (id: string) => apis[0].get(`/v1/evidence/${id}/proof`, { key: workload.key });
      await until(
        'every event sealed',
        async () => (await proofOf(events[events.length - 1].id)).status === 200,
      );
      const heads = await apis[1].get('/v1/evidence/tree-heads?limit=100', { key: workload.key });
      expect(heads.status, heads.text).toBe(200);
      const sizes = (heads.body.data as Array<{ treeSize: number }>).map((h) => h.treeSize);
      // Newest first, strictly decreasing: no two heads of one size (so no two roots for one size).
      for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThan(sizes[i - 1]);
      // Every event is one leaf, once, in one log per environment.
      const { rows } = await db.query(
        'select count(*)::int as leaves, count(distinct event_id)::int as events, count(distinct log_id)::int as logs from ledger_leaves where organization_id = $1',
        [workload.organizationId],
      );
      expect(rows).toEqual([{ leaves: events.length, events: events.length, logs: 1 }]);
      for (const event of events) {
        const res = await proofOf(event.id);
        expect(res.status, res.text).toBe(200);
        expect(proofVerifies(event.receipt, res.body.data)).toBe(true);
      }
      const list = heads.body.data as Array<{ treeSize: number; rootHash: string }>;
      for (let i = 1; i < list.length; i++) {
        const [newer, older] = [list[i - 1], list[i]];
        const res = await apis[i % 2].get(
          `/v1/evidence/consistency?first=${older.treeSize}&second=${newer.treeSize}`,
          { key: workload.key },
        );
        expect(res.status, res.text).toBe(200);
        expect(
          verifyConsistencyProof(
            older.treeSize,
            newer.treeSize,
            older.rootHash,
            newer.rootHash,
            res.body.data.proof,
          ),
        ).toBe(true);
      }
    });
  },
);
