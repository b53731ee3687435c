import { expect } from 'vitest';
import type { ConsentStorage } from '../../../packages/core/src/index.ts';
import type { TestApp } from '../../helpers/app.ts';

export const APP_ID = 'com.example.shop';

/** An app channel with necessary, analytics and marketing, and APP_ID registered on it. */
export async function createAppChannel(t: TestApp, key: string, body: Record<string, unknown> = {}) {
  const created = await t.http.post('/v1/channels', {
    key,
    body: { name: 'Shop app', platform: 'app', ...body },
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.id as string;
  for (const [purpose, required] of [
    ['necessary', true],
    ['analytics', false],
    ['marketing', false],
  ] as const) {
    const res = await t.http.post(`/v1/channels/${id}/purposes`, {
      key,
      body: { key: purpose, name: purpose, required },
    });
    expect(res.status, res.text).toBe(201);
  }
  const added = await t.http.post(`/v1/channels/${id}/apps`, {
    key,
    body: { appId: APP_ID, store: 'apple' },
  });
  expect(added.status, added.text).toBe(201);
  const channel = await t.http.get(`/v1/channels/${id}`, { key });
  return { id, siteKey: channel.body.data.siteKey as string };
}

/** The channel's evidence events, newest first. */
export async function evidenceOf(t: TestApp, key: string, channelId: string) {
  const res = await t.http.get(`/v1/evidence?channelId=${channelId}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<Record<string, any>>;
}

/** AsyncStorage's interface over a Map: what an app's storage keeps across a restart. */
export function memoryStorage(): ConsentStorage & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    getItem: async (key) => entries.get(key) ?? null,
    setItem: async (key, value) => {
      entries.set(key, value);
    },
    removeItem: async (key) => {
      entries.delete(key);
    },
  };
}
