import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsentClientOptions,
  createConsentClient,
  type FetchLike,
  SDK_VERSION,
} from '../../../packages/core/src/index.ts';
import { startTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { SITES_TEST_ENV } from '../../helpers/sites.ts';
import { createIdentitySecret, mintToken } from '../../identity/identity-helpers.ts';
import { APP_ID, createAppChannel, evidenceOf, memoryStorage } from './app-channel.ts';

/**
 * @consent-service/core against the real service over HTTP, as an app uses it: an app channel, the
 * app's headers, a storage that outlives the client (an app restart is a new client on it).
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

async function setup() {
  const channel = await createAppChannel(t, tenant.testKey);
  const storage = memoryStorage();
  const options = (extra: Partial<ConsentClientOptions> = {}): ConsentClientOptions => ({
    baseUrl: t.baseUrl,
    siteKey: channel.siteKey,
    appId: APP_ID,
    platform: 'android',
    storage,
    language: 'en-GB',
    ...extra,
  });
  return { channel, storage, options };
}

/** The Idempotency-Keys of the decisions a client sent, through the real fetch. */
function watchingFetch(keys: string[], afterSend?: () => never): FetchLike {
  return async (url, init) => {
    if (url.includes('/preferences')) keys.push(init.headers['Idempotency-Key']);
    const res = await fetch(url, init);
    if (url.includes('/preferences') && afterSend) afterSend();
    return res;
  };
}

describe('@consent-service/core against the service', () => {
  it('loads the config and asks until a decision holds; a restarted client does not ask again', async () => {
    const { options } = await setup();
    const client = createConsentClient(options());
    expect(client.shouldAsk()).toBe(false); // nothing known before load: nothing shown
    await client.load();
    expect(client.shouldAsk()).toBe(true);
    expect(client.getDecisions()).toBeNull();
    expect(
      client
        .config()
        ?.purposes.map((p) => p.key)
        .sort(),
    ).toEqual(['analytics', 'marketing', 'necessary']);
    const seen: unknown[] = [];
    client.onChange((d) => seen.push(d));
    await client.rejectAll();
    expect(client.shouldAsk()).toBe(false);
    expect(seen).toEqual([{ necessary: 'granted', analytics: 'denied', marketing: 'denied' }]);
    expect(await client.flush()).toBe(true);
    client.close();

    const restarted = createConsentClient(options());
    await restarted.load();
    expect(restarted.shouldAsk()).toBe(false);
    expect(restarted.getDecisions()).toEqual({
      necessary: 'granted',
      analytics: 'denied',
      marketing: 'denied',
    });
    expect(restarted.getSubjectId()).toBe(client.getSubjectId());
  });

  it('records a decision with the app, its platform and the package version in the evidence', async () => {
    const { channel, options } = await setup();
    const client = createConsentClient(options());
    await client.load();
    const decided = await client.decide({ analytics: true, marketing: 'denied' });
    expect(decided).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'denied' });
    expect(await client.flush()).toBe(true);
    const [event, ...others] = await evidenceOf(t, tenant.testKey, channel.id);
    expect(others).toEqual([]);
    expect(SDK_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(event).toMatchObject({
      origin: null,
      source: 'banner',
      decisions: decided,
      app: { appId: APP_ID, platform: 'android', sdkVersion: SDK_VERSION },
    });
    client.close();
  });

  it('retries an undelivered decision after a restart, with the same Idempotency-Key, recorded once', async () => {
    const { channel, storage, options } = await setup();
    const keys: string[] = [];
    const retried: string[] = [];
    // The first run's answer is lost after the service recorded the decision (the app was killed,
    // the network dropped): the client cannot know it was recorded.
    const lost = () => {
      throw new TypeError('Network request failed');
    };
    const first = createConsentClient(options({ fetch: watchingFetch(keys, lost) }));
    await first.load();
    await first.acceptAll();
    expect(await first.flush()).toBe(false); // its answer is lost again
    expect(keys.length).toBeGreaterThanOrEqual(1);
    first.close();
    expect(storage.entries.has(`cs_pending_${channel.siteKey}`)).toBe(true);
    expect(await evidenceOf(t, tenant.testKey, channel.id)).toHaveLength(1);

    const second = createConsentClient(options({ fetch: watchingFetch(retried) }));
    await second.load();
    expect(await second.flush()).toBe(true);
    expect(retried).toEqual([keys[0]]);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(storage.entries.has(`cs_pending_${channel.siteKey}`)).toBe(false);
    const events = await evidenceOf(t, tenant.testKey, channel.id);
    expect(events).toHaveLength(1);
    expect(events[0].decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'granted' });

    // Nothing is left to send: a third run sends nothing.
    const third = createConsentClient(options({ fetch: watchingFetch(retried) }));
    await third.load();
    expect(await third.flush()).toBe(true);
    expect(retried).toHaveLength(1);
    third.close();
    second.close();
  });

  it('forgets the decision and the device id (the evidence stays) and asks again', async () => {
    const { channel, storage, options } = await setup();
    const client = createConsentClient(options());
    await client.load();
    await client.acceptAll();
    expect(await client.flush()).toBe(true);
    const before = client.getSubjectId();
    const seen: unknown[] = [];
    client.onChange((d) => seen.push(d));
    await client.forget();
    expect(seen).toEqual([null]);
    expect(client.shouldAsk()).toBe(true);
    expect(client.getDecisions()).toBeNull();
    expect(client.getSubjectId()).toBeNull();
    expect(storage.entries.has(`cs_consent_${channel.siteKey}`)).toBe(false);
    expect(await evidenceOf(t, tenant.testKey, channel.id)).toHaveLength(1);

    await client.rejectAll();
    expect(await client.flush()).toBe(true);
    expect(client.getSubjectId()).not.toBe(before);
    expect(await evidenceOf(t, tenant.testKey, channel.id)).toHaveLength(2);
    client.close();
  });

  it('signs in: the choice of the account, made on one device, holds on another without asking', async () => {
    const { channel, options } = await setup();
    const { secret } = await createIdentitySecret(t, tenant.testKey, channel.id);
    const token = await mintToken(t, secret, channel.siteKey, { sub: 'account-7' });
    const phone = createConsentClient(options());
    await phone.load();
    expect(await phone.identify(`${token}x`)).toBe(false);
    expect(await phone.identify(token)).toBe(true);
    await phone.decide({ marketing: true });
    expect(await phone.flush()).toBe(true);
    phone.close();

    const tablet = createConsentClient(options({ storage: memoryStorage() }));
    await tablet.load();
    expect(tablet.shouldAsk()).toBe(true);
    expect(await tablet.identify(token)).toBe(true);
    expect(tablet.shouldAsk()).toBe(false);
    expect(tablet.getDecisions()).toEqual({
      necessary: 'granted',
      analytics: 'denied',
      marketing: 'granted',
    });
    expect(await tablet.flush()).toBe(true);
    // The tablet took the account's choice; it recorded nothing of its own.
    expect(await evidenceOf(t, tenant.testKey, channel.id)).toHaveLength(1);
    tablet.close();
  });
});
