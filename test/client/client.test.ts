import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSchema, SCHEMA_PATH } from '../../clients/typescript/scripts/generate.ts';
import {
  ConsentServiceError,
  createConsentClient,
  paginate,
  verifyWebhook,
  WebhookVerificationError,
} from '../../clients/typescript/src/index.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, newSubjectId, recordConsent } from '../helpers/sites.ts';
import { type Received, type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { webhookWorker } from '../webhooks/worker.ts';

/** The typed client against a live service on a real port. */
let t: TestApp;
let org: Tenant;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  org = await t.tenant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const client = (options: { fetch?: typeof fetch } = {}) =>
  createConsentClient({ baseUrl: t.baseUrl, apiKey: org.testKey, ...options });

const channelBody = (name: string) => ({
  name,
  privacyPolicy: { url: 'https://shop.example.com/privacy', version: '1', retentionDays: 30 },
});

describe('generated types', () => {
  it('clients/typescript/src/schema.d.ts matches the service (run `npm run client:generate` if not)', async () => {
    const fresh = await renderSchema(t.app.swagger());
    expect(fs.readFileSync(SCHEMA_PATH, 'utf8') === fresh, 'schema.d.ts is stale').toBe(true);
  });
});

describe('createConsentClient', () => {
  it('pages through a list with an async iterator over nextCursor', async () => {
    const consent = client();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      const { data } = await consent.api.POST('/v1/channels', { body: channelBody(`Paged ${i}`) });
      created.push(data!.data.id);
    }
    const seen: string[] = [];
    let pages = 0;
    for await (const channel of paginate((cursor) => {
      pages++;
      return consent.api.GET('/v1/channels', { params: { query: { limit: 2, cursor } } });
    })) {
      seen.push(channel.id);
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('sends an Idempotency-Key on mutations, so a retry after a lost response returns the same secret', async () => {
    const sent: Request[] = [];
    let firstBody: any = null;
    // The first answer is lost on the way back (the service did create the key).
    const lossy: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push(request.clone());
      const response = await fetch(request);
      if (sent.length === 1) {
        firstBody = await response.json();
        throw new TypeError('fetch failed: connection reset');
      }
      return response;
    };
    const consent = client({ fetch: lossy });
    const { data, response } = await consent.api.POST('/v1/api-keys', {
      body: { name: 'retried', scopes: ['channels:read'] },
    });
    expect(sent).toHaveLength(2);
    const keys = sent.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(data!.data.secret).toBe(firstBody.data.secret);
    expect(data!.data.id).toBe(firstBody.data.id);

    // A key chosen by the caller is kept.
    sent.length = 0;
    await client({ fetch: lossy }).api.POST('/v1/api-keys', {
      body: { name: 'chosen', scopes: ['channels:read'] },
      headers: { 'Idempotency-Key': 'my-own-key-1' },
    });
    expect(sent.map((r) => r.headers.get('idempotency-key'))).toEqual(['my-own-key-1', 'my-own-key-1']);
    // GETs carry none.
    sent.length = 0;
    await client({ fetch: lossy }).api.GET('/v1/api-keys', {});
    expect(sent[0].headers.get('idempotency-key')).toBeNull();
  });

  it('throws problems as typed ConsentServiceError (code, status, detail, requestId, errors)', async () => {
    const consent = client();
    const missing = await consent.api
      .GET('/v1/channels/{id}', {
        params: { path: { id: 'ch_0000000000000000000000' } },
        headers: { 'X-Request-Id': 'client-test-404' },
      })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConsentServiceError);
    expect(missing).toMatchObject({ code: 'not_found', status: 404, requestId: 'client-test-404' });
    expect((missing as ConsentServiceError).detail).toEqual(expect.any(String));

    const invalid = await consent.api
      .POST('/v1/channels', { body: { name: '' } as never })
      .catch((e: unknown) => e as ConsentServiceError);
    expect(invalid).toBeInstanceOf(ConsentServiceError);
    expect(invalid).toMatchObject({ code: 'validation_failed', status: 422 });
    expect((invalid as ConsentServiceError).errors.length).toBeGreaterThan(0);
    expect((invalid as ConsentServiceError).errors[0]).toMatchObject({ path: expect.any(String) });

    const anonymous = createConsentClient({ baseUrl: t.baseUrl, apiKey: 'svc_test_not-a-key' });
    await expect(anonymous.api.GET('/v1/channels', {})).rejects.toMatchObject({
      code: 'invalid_api_key',
      status: 401,
    });
  });
});

describe('consent state from a backend', () => {
  it('consentState answers the newest decisions, or null for a subject who never decided; lookups keep input order', async () => {
    const site = await createReadySite(t, org.testKey);
    const subjectId = newSubjectId();
    const event = await recordConsent(t, site, {
      subjectId,
      decisions: { analytics: 'granted', marketing: 'denied' },
    });
    const consent = client();
    const state = await consent.consentState(site.channelId, subjectId);
    expect(state?.purposes.analytics).toMatchObject({ decision: 'granted', eventId: event.id });
    expect(state?.purposes.marketing?.decision).toBe('denied');
    expect(await consent.consentState(site.channelId, newSubjectId())).toBeNull();
    const nobody = newSubjectId();
    const found = await consent.lookupConsentState(site.channelId, [nobody, subjectId]);
    expect(found.map((r) => [r.subjectId, r.state?.lastRecordedAt ?? null])).toEqual([
      [nobody, null],
      [subjectId, event.recordedAt],
    ]);
    // An unknown channel is an error, not "no decision".
    await expect(consent.consentState('ch_unknown', subjectId)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('verifyWebhook', () => {
  const headersOf = (r: Received) => ({
    'webhook-id': r.id,
    'webhook-timestamp': r.timestamp,
    'webhook-signature': r.signature,
  });

  it('verifies a real delivery, refuses tampering and stale timestamps, and accepts both secrets during a rotation', async () => {
    const consent = client();
    const { data: destination } = await consent.api.POST('/v1/webhook-destinations', {
      body: { url: receiver.url, eventTypes: ['channel.created'] },
    });
    const secret = destination!.data.secret as string;
    const worker = webhookWorker(t);
    await consent.api.POST('/v1/channels', { body: channelBody('Webhooked') });
    await worker.runDue();
    const [delivery] = receiver.received.splice(0);
    expect(delivery).toBeDefined();
    const now = t.clock.now();

    const event = await verifyWebhook(secret, new Headers(headersOf(delivery)), delivery.body, { now });
    expect(event).toMatchObject({ id: delivery.id, type: 'channel.created', environment: 'test' });
    expect(event.data).toMatchObject({ name: 'Webhooked' });

    await expect(verifyWebhook(secret, headersOf(delivery), `${delivery.body} `, { now })).rejects.toThrow(
      WebhookVerificationError,
    );
    const later = new Date(now.getTime() + 301_000);
    await expect(verifyWebhook(secret, headersOf(delivery), delivery.body, { now: later })).rejects.toThrow(
      /tolerance/,
    );
    await expect(
      verifyWebhook(secret, headersOf(delivery), delivery.body, { now: later, toleranceSeconds: 600 }),
    ).resolves.toMatchObject({ id: delivery.id });

    // Rotation: the next delivery is signed with both secrets; each verifies it.
    const { data: rotated } = await consent.api.POST('/v1/webhook-destinations/{id}/rotate-secret', {
      params: { path: { id: destination!.data.id } },
      body: {},
    });
    const newSecret = rotated!.data.secret as string;
    expect(newSecret).not.toBe(secret);
    await consent.api.POST('/v1/channels', { body: channelBody('After rotation') });
    await worker.runDue();
    const [second] = receiver.received.splice(0);
    expect(second.signature.split(' ')).toHaveLength(2);
    for (const s of [secret, newSecret]) {
      await expect(verifyWebhook(s, headersOf(second), second.body, { now })).resolves.toMatchObject({
        type: 'channel.created',
      });
    }
    const unrelated = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await expect(verifyWebhook(unrelated, headersOf(second), second.body, { now })).rejects.toThrow(
      /no signature/,
    );
  });
});
