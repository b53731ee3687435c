import { describe, expect, it } from 'vitest';
import {
  allowed,
  consentModeState,
  decide,
  decidedByGpc,
  initialToggle,
  pickLanguage,
  purposeText,
} from '../../../sdk/src/decisions.ts';
import type { SiteConfig } from '../../../sdk/src/types.ts';
import { purpose } from '../../helpers/sdk-purposes.ts';

const purposes = [
  purpose('necessary', { required: true, consentModeSignals: ['security_storage'] }),
  purpose('analytics', { consentModeSignals: ['analytics_storage'] }),
  purpose('marketing', { gpcOptOut: true, consentModeSignals: ['ad_storage', 'ad_user_data'] }),
];

function config(extra: Partial<SiteConfig> = {}): SiteConfig {
  return {
    channelId: 'chn_logic',
    configVersion: 3,
    defaultLanguage: 'en',
    languages: ['de', 'en', 'fr-CA'],
    privacyPolicy: { url: null, version: '1' },
    purposes,
    technologies: [],
    ...extra,
  };
}

describe('SDK decision logic', () => {
  it('picks the language: exact, then primary subtag, else the default', () => {
    expect(pickLanguage(config(), 'de')).toBe('de');
    expect(pickLanguage(config(), 'de-AT')).toBe('de');
    expect(pickLanguage(config(), 'fr-ca')).toBe('fr-CA');
    expect(pickLanguage(config(), 'fr-FR')).toBe('en');
    expect(pickLanguage(config(), 'ja')).toBe('en');
    expect(pickLanguage(config(), undefined)).toBe('en');
  });

  it('translates a purpose, falling back to its own text', () => {
    const p = purpose('analytics', {
      name: 'Analytics',
      description: 'Counts visits',
      translations: { de: { name: 'Statistik', description: null } },
    });
    expect(purposeText(p, 'de')).toEqual({ name: 'Statistik', description: 'Counts visits' });
    expect(purposeText(p, 'fr')).toEqual({ name: 'Analytics', description: 'Counts visits' });
  });

  it('turns choices into decisions; required purposes are always granted', () => {
    expect(decide(purposes, 'accept-all', false)).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'granted',
    });
    expect(decide(purposes, 'reject-all', false)).toEqual({
      necessary: 'granted',
      analytics: 'denied',
      marketing: 'denied',
    });
    expect(decide(purposes, { necessary: false, marketing: true }, false)).toEqual({
      necessary: 'granted',
      analytics: 'denied',
      marketing: 'granted',
    });
  });

  it('honours GPC: gpcOptOut purposes are denied whatever the choice, and their toggles start off', () => {
    expect(decide(purposes, 'accept-all', true)).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'denied',
    });
    expect(decide(purposes, { analytics: true, marketing: true }, true)).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'denied',
    });
    expect(initialToggle(purposes[2], { marketing: 'granted' }, true)).toBe(false);
    expect(initialToggle(purposes[2], { marketing: 'granted' }, false)).toBe(true);
    expect(initialToggle(purposes[0], null, true)).toBe(true);
    expect(decidedByGpc(purposes, true)).toBe(false);
    expect(decidedByGpc([purposes[0], purposes[2]], true)).toBe(true);
    expect(decidedByGpc([purposes[0], purposes[2]], false)).toBe(false);
    expect(decidedByGpc([purposes[0]], true)).toBe(false);
  });

  it('maps granted purposes to Consent Mode signals, all seven present', () => {
    const state = consentModeState(purposes, {
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'denied',
    });
    expect(state).toEqual({
      ad_storage: 'denied',
      ad_user_data: 'denied',
      ad_personalization: 'denied',
      analytics_storage: 'granted',
      functionality_storage: 'denied',
      personalization_storage: 'denied',
      security_storage: 'granted',
    });
  });

  it('allows a blocked element only when every purpose it names is granted', () => {
    const d = { analytics: 'granted' as const, marketing: 'denied' as const };
    expect(allowed('analytics', d)).toBe(true);
    expect(allowed('analytics marketing', d)).toBe(false);
    expect(allowed('unknown', d)).toBe(false);
    expect(allowed('', d)).toBe(false);
    expect(allowed(null, d)).toBe(false);
  });
});

// store-independent: the SDK's logic in Node, no service
