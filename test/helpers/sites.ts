import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import type { TestResponse } from './http.ts';

/**
 * A ready public site for tests of the site endpoints, evidence, exports, the ledger and the SDK:
 * a channel with three purposes (one required, one with gpcOptOut) and two origins (one exact, one
 * wildcard), created over HTTP with the given API key (its environment decides the site's).
 */
export const SITE_ORIGIN = 'https://shop.example.com';
/** Registered as `https://*.example.org`: any one-label subdomain, e.g. WILDCARD_MATCH. */
export const WILDCARD_ORIGIN = 'https://*.example.org';
export const WILDCARD_MATCH = 'https://blog.example.org';

/** Limits high enough for test files that send many public requests from one address. */
export const SITES_TEST_ENV = { RATE_LIMIT_PER_MINUTE: '100000', PUBLIC_RATE_LIMIT_PER_MINUTE: '100000' };

export interface ReadySite {
  /** The channel as `GET /v1/channels/:id` shows it, after the purposes were added. */
  channel: Record<string, any>;
  channelId: string;
  siteKey: string;
  configVersion: number;
  /** Purpose keys: `necessary` (required), `analytics`, `marketing` (gpcOptOut). */
  purposes: { required: 'necessary'; optional: 'analytics'; gpcOptOut: 'marketing' };
  /** The API key the site was made with (its environment is the site's). */
  key: string;
}

async function ok(res: Promise<TestResponse>, status = 201): Promise<any> {
  const response = await res;
  expect(response.status, response.text).toBe(status);
  return response.body?.data;
}

export async function createReadySite(
  t: TestApp,
  key: string,
  options: { name?: string; retentionDays?: number; policyVersion?: string; gppCmpId?: number } = {},
): Promise<ReadySite> {
  const channel = await ok(
    t.http.post('/v1/channels', {
      key,
      body: {
        name: options.name ?? 'Shop',
        privacyPolicy: {
          url: 'https://shop.example.com/privacy',
          version: options.policyVersion ?? '2024-05',
          retentionDays: options.retentionDays ?? 365,
        },
        // A GPP channel: its decisions may carry a gppString (the service decodes it).
        ...(options.gppCmpId !== undefined && { gppCmpId: options.gppCmpId }),
      },
    }),
  );
  // One millisecond apart on the manual clock, so the banner order (creation order) is the order here.
  const purpose = (body: Record<string, unknown>) => {
    t.clock.advance(1);
    return ok(t.http.post(`/v1/channels/${channel.id}/purposes`, { key, body }));
  };
  await purpose({ key: 'necessary', name: 'Strictly necessary', required: true });
  await purpose({
    key: 'analytics',
    name: 'Analytics',
    consentModeSignals: ['analytics_storage'],
    translations: { de: { name: 'Statistik', description: null } },
  });
  await purpose({
    key: 'marketing',
    name: 'Marketing',
    gpcOptOut: true,
    consentModeSignals: ['ad_storage', 'ad_user_data', 'ad_personalization'],
  });
  for (const origin of [SITE_ORIGIN, WILDCARD_ORIGIN]) {
    await ok(t.http.post(`/v1/channels/${channel.id}/origins`, { key, body: { origin } }));
  }
  const current = await ok(t.http.get(`/v1/channels/${channel.id}`, { key }), 200);
  return {
    channel: current,
    channelId: current.id,
    siteKey: current.siteKey,
    configVersion: current.configVersion,
    purposes: { required: 'necessary', optional: 'analytics', gpcOptOut: 'marketing' },
    key,
  };
}

/** A fresh visitor id as the SDK would make one. */
export const newSubjectId = () => `sub-${randomUUID()}`;

/** A valid preferences body for the site, with overrides. */
export function preferencesBody(site: ReadySite, overrides: Record<string, unknown> = {}) {
  return {
    subjectId: newSubjectId(),
    decisions: { analytics: 'granted', marketing: 'denied' },
    configVersion: site.configVersion,
    ...overrides,
  };
}

/** POST …/preferences as a browser on `origin` would (null sends no Origin header). */
export function postPreferences(
  t: TestApp,
  siteKey: string,
  body: unknown,
  options: { origin?: string | null; idempotencyKey?: string; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const origin = options.origin === undefined ? SITE_ORIGIN : options.origin;
  if (origin !== null) headers.origin = origin;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  return t.http.post(`/v1/public/sites/${siteKey}/preferences`, { body, headers });
}

/** Records one decision and returns the 201's data (`{id, recordedAt, receipt}`). */
export async function recordConsent(
  t: TestApp,
  site: ReadySite,
  overrides: Record<string, unknown> = {},
  options: { origin?: string; headers?: Record<string, string> } = {},
) {
  return ok(postPreferences(t, site.siteKey, preferencesBody(site, overrides), options));
}
