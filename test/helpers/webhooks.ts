import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** App env that lets a destination point at this machine (the address guard refuses loopback otherwise). */
export const LOCAL_WEBHOOKS_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };

/**
 * A destination taking `eventTypes`, so that those events are stored in the outbox (an event no
 * destination takes is not). It points at a closed local port: attempts fail, which these tests
 * never look at. The app must run with LOCAL_WEBHOOKS_ENV.
 */
export async function subscribeWebhook(t: TestApp, key: string, eventTypes: string[]): Promise<string> {
  const res = await t.http.post('/v1/webhook-destinations', {
    key,
    body: { url: 'http://127.0.0.1:9/hooks', eventTypes },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}
