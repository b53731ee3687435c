import { afterEach, describe, expect, it, vi } from 'vitest';
import { regionQuery } from '../../../sdk/src/declared-region.ts';
import {
  gpcOptOutDue,
  honorsGpc,
  initialState,
  overlay,
  policyOf,
  stillHolds,
  withGpcOptOut,
} from '../../../sdk/src/regime.ts';
import type { SiteConfig, StoredConsent } from '../../../sdk/src/types.ts';
import { purpose } from '../../helpers/sdk-purposes.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 5, 1);

const necessary = purpose('necessary', { required: true });
const analytics = purpose('analytics');
const marketing = purpose('marketing', { gpcOptOut: true });

function config(extra: Partial<SiteConfig> = {}): SiteConfig {
  return {
    channelId: 'chn_logic',
    configVersion: 5,
    defaultLanguage: 'en',
    languages: ['en'],
    privacyPolicy: { url: null, version: '1' },
    purposes: [necessary, analytics, marketing],
    technologies: [],
    ...extra,
  };
}

const stored = (v: number, ageDays: number, d: StoredConsent['d']): StoredConsent => ({
  s: 'a'.repeat(32),
  d,
  v,
  t: NOW - ageDays * DAY_MS,
});
const rejected = { necessary: 'granted', analytics: 'denied', marketing: 'denied' } as const;
const accepted = { necessary: 'granted', analytics: 'granted', marketing: 'granted' } as const;

describe('SDK regimes and the re-ask rule', () => {
  it('reads regime, lifetime and material version, with the old behaviour when a server sends none', () => {
    expect(policyOf(config())).toEqual({ regime: 'opt-in', maxAgeDays: 180, requiredSince: 5 });
    expect(policyOf(config({ regime: 'opt-out', consentMaxAgeDays: 395, consentRequiredSince: 2 }))).toEqual({
      regime: 'opt-out',
      maxAgeDays: 395,
      requiredSince: 2,
    });
    expect(policyOf(config({ regime: 'notice-only' })).regime).toBe('notice-only');
    expect(policyOf(config({ consentRequiredSince: 9 })).requiredSince).toBe(5);
    // Values this SDK does not know are read as the safest: opt-in, 180 days.
    const odd = { regime: 'opt-maybe', consentMaxAgeDays: 'x', consentRequiredSince: null } as never;
    expect(policyOf(config(odd))).toEqual({ regime: 'opt-in', maxAgeDays: 180, requiredSince: 5 });
  });

  it('keeps a decision for a version not older than consentRequiredSince and younger than the lifetime', () => {
    const policy = policyOf(config({ consentMaxAgeDays: 30, consentRequiredSince: 3 }));
    expect(stillHolds(3, NOW - DAY_MS, policy, NOW)).toBe(true);
    expect(stillHolds(5, NOW - 30 * DAY_MS, policy, NOW)).toBe(true);
    expect(stillHolds(2, NOW - DAY_MS, policy, NOW)).toBe(false); // before the material change
    expect(stillHolds(5, NOW - 30 * DAY_MS - 1, policy, NOW)).toBe(false); // older than 30 days
    expect(stillHolds(5, NOW + 31 * DAY_MS, policy, NOW)).toBe(false); // stored under a wrong clock
    expect(stillHolds(5, undefined, policy, NOW)).toBe(false); // no time: its age is unknown
    expect(stillHolds(undefined, NOW, policy, NOW)).toBe(false);
  });

  it('opt-in: a translation-only change keeps the decision, a material one asks again', () => {
    const cfg = config({ regime: 'opt-in', consentRequiredSince: 4 });
    expect(initialState(cfg, stored(4, 10, accepted), false, NOW)).toEqual({
      decisions: accepted,
      ask: false,
    });
    expect(initialState(cfg, stored(3, 10, accepted), false, NOW)).toEqual({ decisions: null, ask: true });
    expect(initialState(cfg, stored(5, 181, accepted), false, NOW)).toEqual({ decisions: null, ask: true });
    expect(initialState(cfg, null, false, NOW)).toEqual({ decisions: null, ask: true });
    expect(initialState(cfg, { s: 'a'.repeat(32) }, false, NOW)).toEqual({ decisions: null, ask: true });
  });

  it('an older server (no consentRequiredSince): any new configVersion asks again, as before', () => {
    expect(initialState(config(), stored(4, 1, accepted), false, NOW).ask).toBe(true);
    expect(initialState(config(), stored(5, 1, accepted), false, NOW).ask).toBe(false);
  });

  it('a reused decision covers only current purposes; the ones it did not cover take the regime default', () => {
    const cfg = config({ consentRequiredSince: 1, purposes: [necessary, analytics, purpose('chat')] });
    const old = { analytics: 'granted', marketing: 'granted', necessary: 'denied' } as const;
    // opt-in: "chat" was never asked, so it is off; the removed "marketing" is dropped.
    expect(initialState(cfg, stored(2, 1, old), false, NOW).decisions).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      chat: 'denied',
    });
    expect(overlay(cfg, 'opt-out', { analytics: 'denied' }, false)).toEqual({
      necessary: 'granted',
      analytics: 'denied',
      chat: 'granted',
    });
  });

  it('opt-out and notice-only ask nothing: optional purposes run, GPC keeps gpcOptOut ones off', () => {
    for (const regime of ['opt-out', 'notice-only'] as const) {
      expect(initialState(config({ regime }), null, false, NOW)).toEqual({ decisions: accepted, ask: false });
      expect(initialState(config({ regime }), null, true, NOW).decisions).toEqual({
        ...accepted,
        marketing: 'denied',
      });
    }
  });

  it('opt-out: an earlier opt-out stays applied even after a material change or the lifetime', () => {
    const cfg = config({ regime: 'opt-out', consentRequiredSince: 5 });
    expect(initialState(cfg, stored(1, 400, rejected), false, NOW)).toEqual({
      decisions: rejected,
      ask: false,
    });
  });
});

describe('SDK: GPC as an opt-out in opt-out regions', () => {
  const optOut = config({ regime: 'opt-out', consentRequiredSince: 3 });
  const optedOut = { ...accepted, marketing: 'denied' } as const;

  it('records the signal once per configVersion, and only in opt-out regions with a covered purpose', () => {
    expect(gpcOptOutDue(optOut, null, true, NOW)).toBe(true);
    expect(gpcOptOutDue(optOut, null, false, NOW)).toBe(false);
    expect(gpcOptOutDue(config({ regime: 'opt-in' }), null, true, NOW)).toBe(false);
    expect(gpcOptOutDue(config({ regime: 'notice-only' }), null, true, NOW)).toBe(false);
    expect(
      gpcOptOutDue(config({ regime: 'opt-out', purposes: [necessary, analytics] }), null, true, NOW),
    ).toBe(false);
    // Recorded for version 5 already: nothing more; a version-4 record: once more for version 5.
    expect(gpcOptOutDue(optOut, { ...stored(5, 1, optedOut), g: 1 }, true, NOW)).toBe(false);
    expect(gpcOptOutDue(optOut, { ...stored(4, 1, optedOut), g: 1 }, true, NOW)).toBe(true);
  });

  it("a visitor's explicit opt-back-in wins while it holds; a material change or the lifetime ends it", () => {
    expect(gpcOptOutDue(optOut, stored(4, 1, accepted), true, NOW)).toBe(false);
    expect(gpcOptOutDue(optOut, stored(2, 1, accepted), true, NOW)).toBe(true); // before consentRequiredSince
    expect(gpcOptOutDue(optOut, stored(4, 181, accepted), true, NOW)).toBe(true); // past 180 days
  });

  it('a GPC record denies exactly the covered purposes; the note shows only while they are all denied', () => {
    expect(withGpcOptOut(optOut, accepted)).toEqual(optedOut);
    expect(withGpcOptOut(optOut, rejected)).toEqual(rejected);
    expect(honorsGpc(optOut, optedOut)).toBe(true);
    expect(honorsGpc(optOut, accepted)).toBe(false);
    expect(honorsGpc(optOut, null)).toBe(false);
  });
});

describe('SDK declared region (data-region)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is sent as ?region= on test channels only, as an upper-case ISO 3166 code', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(regionQuery('site_test_abc', null)).toBe('');
    expect(regionQuery('site_test_abc', 'US-CA')).toBe('?region=US-CA');
    expect(regionQuery('site_test_abc', ' fr ')).toBe('?region=FR');
    expect(warn).not.toHaveBeenCalled();
    expect(regionQuery('site_live_abc', 'US-CA')).toBe('');
    expect(regionQuery('site_test_abc', 'EEA')).toBe('');
    expect(regionQuery('site_test_abc', 'US-CA&x=1')).toBe('');
    expect(warn).toHaveBeenCalledTimes(3);
  });
});

// store-independent: the SDK's regime logic in Node, no service
