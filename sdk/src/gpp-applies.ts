import type { SiteConfig } from './types.ts';

/**
 * Whether this visitor gets the IAB GPP CMP API (docs/regions.md): the channel has a CMP id and the
 * visitor is in an opt-out region of the US (`US` or a subdivision `US-…`). Apart from the loader,
 * which needs the DOM, so unit tests import it in Node.
 */
export function gppApplies(config: SiteConfig): boolean {
  const code = config.region?.code ?? '';
  return !!config.gppCmpId && config.regime === 'opt-out' && (code === 'US' || code.startsWith('US-'));
}
