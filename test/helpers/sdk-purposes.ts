import type { Purpose } from '../../sdk/src/types.ts';

/**
 * A purpose as a channel's config gives it to the SDK: an optional, consent-based purpose with no
 * texts of its own, changed by `extra`. The SDK's pure tests, and the app client's that compare with
 * them, build their configs from it.
 */
export function purpose(key: string, extra: Partial<Purpose> = {}): Purpose {
  return {
    key,
    name: key,
    description: null,
    legalBasis: 'consent',
    required: false,
    translations: {},
    consentModeSignals: [],
    gpcOptOut: false,
    ...extra,
  };
}
