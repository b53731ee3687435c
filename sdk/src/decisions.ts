import type { Decision, Decisions, Purpose, SiteConfig } from './types.ts';

/** The seven Google Consent Mode v2 signals; all start denied. */
export const CONSENT_MODE_SIGNALS = [
  'ad_storage',
  'ad_user_data',
  'ad_personalization',
  'analytics_storage',
  'functionality_storage',
  'personalization_storage',
  'security_storage',
] as const;

/**
 * The language to show: `navigator.language` if the channel has it (exact, case-insensitive), then
 * its primary subtag, else the channel's default language.
 */
export function pickLanguage(config: SiteConfig, browserLanguage: string | undefined): string {
  const wanted = (browserLanguage || '').toLowerCase();
  const available = config.languages.length ? config.languages : [config.defaultLanguage];
  const exact = available.find((lang) => lang.toLowerCase() === wanted);
  if (exact) return exact;
  const primary = wanted.split('-')[0];
  return available.find((lang) => lang.toLowerCase() === primary) || config.defaultLanguage;
}

/** A purpose's name and description in `language`, falling back to its own (default-language) text. */
export function purposeText(purpose: Purpose, language: string) {
  const t = purpose.translations[language];
  return {
    name: t?.name || purpose.name,
    description: t?.description || purpose.description || '',
  };
}

export type Choice = 'accept-all' | 'reject-all' | Record<string, boolean>;

/** Whether GPC switches this purpose off: the signal is on and the purpose is a gpcOptOut one. */
export function gpcBlocks(purpose: Purpose, gpc: boolean): boolean {
  return gpc && purpose.gpcOptOut && !purpose.required;
}

/**
 * Turns a choice into decisions for every purpose. Required purposes are always granted. With GPC on,
 * gpcOptOut purposes are always denied, whatever the choice: the service records them so anyway
 * (a grant beside the opt-out signal is not taken as informed), and the page must not run what the
 * evidence says was denied.
 */
export function decide(purposes: Purpose[], choice: Choice, gpc: boolean): Decisions {
  const decisions: Decisions = {};
  for (const p of purposes) {
    let granted: boolean;
    if (p.required) granted = true;
    else if (gpcBlocks(p, gpc) || choice === 'reject-all') granted = false;
    else granted = choice === 'accept-all' || choice[p.key] === true;
    decisions[p.key] = granted ? 'granted' : 'denied';
  }
  return decisions;
}

/** The initial state of a customize toggle: the earlier decision if any, else off. */
export function initialToggle(purpose: Purpose, previous: Decisions | null | undefined, gpc: boolean) {
  if (purpose.required) return true;
  if (gpcBlocks(purpose, gpc)) return false;
  return previous?.[purpose.key] === 'granted';
}

/**
 * Whether GPC alone settles everything: it is on and every optional purpose is a gpcOptOut one, so
 * there is nothing left to ask and the SDK records the decision itself with source "gpc".
 */
export function decidedByGpc(purposes: Purpose[], gpc: boolean): boolean {
  const optional = purposes.filter((p) => !p.required);
  return gpc && optional.length > 0 && optional.every((p) => p.gpcOptOut);
}

/** Consent Mode state: a signal is granted when any granted purpose lists it. */
export function consentModeState(purposes: Purpose[], decisions: Decisions): Record<string, Decision> {
  const state: Record<string, Decision> = {};
  for (const signal of CONSENT_MODE_SIGNALS) state[signal] = 'denied';
  for (const p of purposes) {
    if (decisions[p.key] !== 'granted') continue;
    for (const signal of p.consentModeSignals) state[signal] = 'granted';
  }
  return state;
}

/** Whether an element tagged `data-consent-purpose="a b"` may run: every listed purpose is granted. */
export function allowed(purposeAttr: string | null, decisions: Decisions): boolean {
  const keys = (purposeAttr || '').split(/[\s,]+/).filter(Boolean);
  return keys.length > 0 && keys.every((key) => decisions[key] === 'granted');
}
