import { acString, parseAcString } from '../../../src/shared/additional-consent.ts';
import type { TcfConfig } from '../types.ts';

/*
 * The Additional Consent strings of a choice, with no DOM: tcf.js and the headless core
 * (packages/core) make them with these, so an app's AC string is the web's.
 */

/**
 * Google's Additional Consent (version 2) for the channel's providers of Google's Ad Tech Providers
 * list: `2~<consented ids>~dv.<disclosed ids>`, ids dot-separated, a consented provider not listed
 * again as disclosed. Every provider of the channel is disclosed (the layers list them all).
 */
export function acStringOf(
  tcf: Pick<TcfConfig, 'googleAdditionalConsent'>,
  consented: number[],
  /** The providers the visitor was shown (a kept choice's); absent: all of the channel's. */
  shown?: number[],
): string | undefined {
  const providers = tcf.googleAdditionalConsent?.providerIds?.filter((id) => !shown || shown.includes(id));
  if (!providers?.length) return undefined;
  return acString(
    providers.filter((id) => consented.includes(id)),
    providers,
  );
}

const parsed = (ac: string | undefined) => (ac ? parseAcString(ac) : null);

/** The provider ids an AC string of ours consents to ([] for none or another string). */
export function acConsentsOf(ac: string | undefined): number[] {
  return parsed(ac)?.consented ?? [];
}

/** Every provider an AC string of ours names (consented or disclosed): those the visitor was shown. */
export function acShownOf(ac: string | undefined): number[] {
  const found = parsed(ac);
  return found ? [...found.consented, ...found.disclosed] : [];
}
