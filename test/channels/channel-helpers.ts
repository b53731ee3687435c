import { expect } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/** An app whose rate limit stays out of the way: these files send hundreds of requests per key. */
export function startChannelsApp(): Promise<TestApp> {
  return startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000', PUBLIC_RATE_LIMIT_PER_MINUTE: '100000' } });
}

export async function createChannel(
  t: TestApp,
  key: string,
  body: Record<string, unknown> = { name: 'Shop' },
) {
  const res = await t.http.post('/v1/channels', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

export async function createPurpose(
  t: TestApp,
  key: string,
  channelId: string,
  body: Record<string, unknown>,
) {
  const res = await t.http.post(`/v1/channels/${channelId}/purposes`, { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

export async function createTechnology(
  t: TestApp,
  key: string,
  channelId: string,
  body: Record<string, unknown>,
) {
  const res = await t.http.post(`/v1/channels/${channelId}/technologies`, { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** Every item of a cursor list, walking pages of `limit`. */
export async function walkPages(t: TestApp, key: string, path: string, limit: number) {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.http.get(
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    expect(res.status, res.text).toBe(200);
    items.push(...res.body.data);
    cursor = res.body.meta.nextCursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

export async function auditActions(t: TestApp, key: string, targetId: string): Promise<string[]> {
  const res = await t.http.get(`/v1/audit-logs?targetId=${targetId}&limit=100`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((e: { action: string }) => e.action).reverse();
}

/**
 * A browser's decision on the channel's public endpoint, from `origin` (registered here first), for
 * a given configVersion: what the public endpoints accept is checked through them, not the service.
 */
export async function decisionsFrom(
  t: TestApp,
  key: string,
  channel: { id: string; siteKey: string },
  origin = 'https://shop.example.com',
) {
  await t.http.post(`/v1/channels/${channel.id}/origins`, { key, body: { origin } });
  return (configVersion: number) =>
    t.http.post(`/v1/public/sites/${channel.siteKey}/preferences`, {
      body: { subjectId: `sub-${channel.id}`, decisions: {}, configVersion },
      headers: { origin },
    });
}
