import { describe, expect, it } from 'vitest';
import {
  consentModeEntries,
  consentModeText,
  outcomeOf,
  regionCode,
  storedSummary,
} from '../../../sdk/src/debug/describe.ts';
import { purpose } from '../../helpers/sdk-purposes.ts';

const purposes = [purpose('necessary', { required: true }), purpose('analytics'), purpose('marketing')];

describe('the developer panel’s words for the SDK’s state', () => {
  it('names a decision by its optional purposes: accepted all, rejected all, custom, none', () => {
    const all = { necessary: 'granted', analytics: 'granted', marketing: 'granted' } as const;
    expect(outcomeOf(all, purposes)).toBe('Accepted all');
    expect(outcomeOf({ ...all, analytics: 'denied', marketing: 'denied' }, purposes)).toBe('Rejected all');
    expect(outcomeOf({ ...all, marketing: 'denied' }, purposes)).toBe('Custom');
    expect(outcomeOf(undefined, purposes)).toBe('No choice stored');
    // Before the config came, every purpose of the decision counts.
    expect(outcomeOf({ analytics: 'granted', marketing: 'denied' }, null)).toBe('Custom');
  });

  it('sums up the stored cookie in the config’s purpose order, with when, version and subject', () => {
    const t = Date.UTC(2026, 11, 3, 10, 0, 0);
    const summary = storedSummary(
      {
        s: 'ab'.repeat(16),
        d: { marketing: 'denied', analytics: 'granted', necessary: 'granted' },
        v: 4,
        t,
        g: 1,
      },
      purposes,
    );
    expect(summary).toEqual({
      outcome: 'Custom',
      purposes: [
        ['necessary', 'granted'],
        ['analytics', 'granted'],
        ['marketing', 'denied'],
      ],
      when: '2026-12-03T10:00:00.000Z',
      configVersion: 4,
      subjectId: 'ab'.repeat(16),
      byGpc: true,
    });
    // An id kept from before, with no decision (after a dismissed notice): no purposes, no time.
    expect(storedSummary({ s: 'cd'.repeat(16) }, purposes)).toMatchObject({
      outcome: 'No choice stored',
      purposes: [],
      when: null,
      configVersion: null,
    });
  });

  it('reads Consent Mode commands off the dataLayer from an index on, arguments objects or arrays', () => {
    function queued(..._args: unknown[]) {
      // biome-ignore lint/complexity/noArguments: the SDK queues Arguments objects, as gtag.js reads them.
      return arguments;
    }
    const layer = [
      queued('consent', 'default', { ad_storage: 'denied', analytics_storage: 'denied' }),
      { event: 'gtm.js' },
      ['consent', 'update', { ad_storage: 'denied', analytics_storage: 'granted' }],
    ];
    expect(consentModeEntries(layer, 0)).toEqual([
      ['default', []],
      ['update', ['analytics_storage']],
    ]);
    expect(consentModeEntries(layer, 1)).toEqual([['update', ['analytics_storage']]]);
    expect(consentModeEntries(undefined, 0)).toEqual([]);
    expect(consentModeText(['default', []])).toBe('Consent Mode default: every signal denied');
    expect(consentModeText(['update', ['analytics_storage']])).toBe(
      'Consent Mode update: granted analytics_storage; the rest denied',
    );
  });

  it('takes a region code the service accepts as declared, upper-cased, and nothing else', () => {
    expect(regionCode(' us-ca ')).toBe('US-CA');
    expect(regionCode('DE')).toBe('DE');
    for (const bad of ['Narnia', 'U', 'US-', 'US-CALI', '*', '']) expect(regionCode(bad), bad).toBeNull();
  });
});
