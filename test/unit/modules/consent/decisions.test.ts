import { describe, expect, it } from 'vitest';
import type { VisitorConfig } from '../../../../src/modules/channels/visitor-config.ts';
import { resolveDecisions } from '../../../../src/modules/consent/decisions.ts';
import { AppError } from '../../../../src/platform/http/errors.ts';

const purpose = (key: string, extra: Partial<VisitorConfig['purposes'][number]> = {}) => ({
  key,
  name: key,
  description: null,
  legalBasis: 'consent' as const,
  required: false,
  translations: {},
  consentModeSignals: [],
  gpcOptOut: false,
  ...extra,
});

const config: VisitorConfig = {
  channelId: 'ch_1',
  siteKey: 'site_test_1',
  configVersion: 4,
  defaultLanguage: 'en',
  languages: ['en'],
  privacyPolicy: { url: null, version: '1' },
  regionRules: [{ regions: ['*'], regime: 'opt-in' }],
  consentMaxAgeDays: 180,
  rejectCooldownDays: 0,
  gppCmpId: null,
  gppSections: 'usnat',
  tcf: null,
  integrations: { microsoftUet: false, microsoftClarity: false },
  firstPartyPath: null,
  cookieDomain: null,
  crossDomain: false,
  imports: [],
  purposes: [
    purpose('necessary', { required: true }),
    purpose('analytics'),
    purpose('ads', { gpcOptOut: true }),
  ],
  technologies: [],
};

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('resolveDecisions', () => {
  it('records every purpose of the notice: required granted, undecided denied', () => {
    expect(resolveDecisions(config, { decisions: { analytics: 'granted' }, gpc: false })).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      ads: 'denied',
    });
    expect(
      resolveDecisions(config, { decisions: { necessary: 'granted', ads: 'granted' }, gpc: false }),
    ).toEqual({ necessary: 'granted', analytics: 'denied', ads: 'granted' });
  });

  it('GPC denies gpcOptOut purposes, even when sent granted', () => {
    expect(
      resolveDecisions(config, { decisions: { ads: 'granted', analytics: 'granted' }, gpc: true }),
    ).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      ads: 'denied',
    });
  });

  it('unknown keys are unknown_purpose; a denied required purpose is validation_failed', () => {
    const unknown = errorOf(() =>
      resolveDecisions(config, { decisions: { 'a/b~c': 'granted' }, gpc: false }),
    );
    expect(unknown.code).toBe('unknown_purpose');
    expect(unknown.options.errors).toEqual([{ path: '/decisions/a~1b~0c', message: expect.any(String) }]);
    const denied = errorOf(() =>
      resolveDecisions(config, { decisions: { necessary: 'denied' }, gpc: false }),
    );
    expect(denied.code).toBe('validation_failed');
    expect(denied.options.errors?.[0].path).toBe('/decisions/necessary');
    // Unknown keys are reported first, and long ones are cut in the detail.
    const both = errorOf(() =>
      resolveDecisions(config, {
        decisions: { necessary: 'denied', ['k'.repeat(500)]: 'granted' },
        gpc: false,
      }),
    );
    expect(both.code).toBe('unknown_purpose');
    expect(both.detail.length).toBeLessThan(200);
  });
});

// store-independent: decision rules, pure functions
