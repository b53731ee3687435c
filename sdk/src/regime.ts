import { decide } from './decisions.ts';
import type { Decisions, Purpose, Regime, SiteConfig, StoredConsent } from './types.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface Policy {
  regime: Regime;
  maxAgeDays: number;
  requiredSince: number;
}

/**
 * The config's regime, decision lifetime and newest material version (docs/regions.md). A server from
 * before regions sends none of them: then opt-in, 180 days, and every new configVersion is material,
 * which is exactly how the SDK behaved before, so an upgraded SDK on an older server changes nothing.
 */
export function policyOf(config: SiteConfig): Policy {
  const { regime, consentMaxAgeDays: days, consentRequiredSince: since } = config;
  return {
    regime: regime === 'opt-out' || regime === 'notice-only' ? regime : 'opt-in',
    maxAgeDays: Number.isInteger(days) && days! > 0 ? days! : 180,
    // Never above the current version: a decision made now must hold, or the banner would never go.
    requiredSince: Number.isInteger(since) ? Math.min(since!, config.configVersion) : config.configVersion,
  };
}

/**
 * Whether something the visitor did for configVersion `v` at time `t` (a decision, a dismissed
 * notice) still holds: `v` is not older than the newest material change and `t` is younger than
 * consentMaxAgeDays. A time far in the future (a wrong clock when it was stored) does not hold.
 */
export function stillHolds(v: unknown, t: unknown, policy: Policy, now: number): boolean {
  if (typeof v !== 'number' || typeof t !== 'number') return false;
  const maxAge = policy.maxAgeDays * DAY_MS;
  return v >= policy.requiredSince && now - t <= maxAge && t <= now + maxAge;
}

/**
 * The regime's decisions for purposes nobody decided: opt-in runs nothing optional; opt-out and
 * notice-only run every optional purpose, except that a GPC signal keeps gpcOptOut purposes off (the
 * page must not run what the visitor's browser asked not to, recorded or not).
 */
export function regimeDefaults(config: SiteConfig, regime: Regime, gpc: boolean): Decisions {
  return decide(config.purposes, regime === 'opt-in' ? 'reject-all' : 'accept-all', gpc);
}

/**
 * Stored decisions laid over the regime's defaults, for the config's purposes only: a purpose the
 * stored decision did not cover gets the default; a removed purpose is dropped, so its stale grant
 * cannot activate elements that still name it; required purposes are always granted.
 */
export function overlay(config: SiteConfig, regime: Regime, stored: Decisions | undefined, gpc: boolean) {
  const out = regimeDefaults(config, regime, gpc);
  for (const p of config.purposes) {
    const d = stored?.[p.key];
    if (!p.required && (d === 'granted' || d === 'denied')) out[p.key] = d;
  }
  return out;
}

/**
 * What the page runs under when the config arrives, and whether the banner must ask.
 * - opt-in: a stored decision that still holds is applied, even if made for an older configVersion,
 *   as long as no material change came since; otherwise nothing runs and the banner asks.
 * - opt-out and notice-only: nothing is asked; the defaults run, under any stored decision, stale or
 *   not: an opt-out the visitor made is never turned back on by the SDK alone (CCPA forbids asking
 *   to opt back in for 12 months, so silently doing it is worse). The cookie ends with the lifetime.
 */
export function initialState(config: SiteConfig, stored: StoredConsent | null, gpc: boolean, now: number) {
  const policy = policyOf(config);
  if (policy.regime !== 'opt-in') {
    return { decisions: overlay(config, policy.regime, stored?.d, gpc), ask: false };
  }
  if (stored?.d && (stillHolds(stored.v, stored.t, policy, now) || coolingDown(config, stored, now))) {
    return { decisions: overlay(config, 'opt-in', stored.d, gpc), ask: false };
  }
  return { decisions: null, ask: true };
}

/**
 * The channel's `rejectCooldownDays` (docs/guides/signed-in-visitors.md, "Ask less often after a refusal"): after
 * the visitor's own refusal of every optional purpose, the banner stays away for that many days,
 * even after a material change (a purpose added since is not granted either: it stays off). A GPC
 * record is the browser's, not the visitor's answer to the banner, so it starts no cooldown.
 */
export function coolingDown(config: SiteConfig, stored: StoredConsent, now: number): boolean {
  const days = config.rejectCooldownDays ?? 0;
  if (!(days > 0) || stored.g || !stored.d || typeof stored.t !== 'number') return false;
  const optional = config.purposes.filter((p) => !p.required);
  const refusedAll =
    Object.values(stored.d).includes('denied') && optional.every((p) => stored.d![p.key] !== 'granted');
  return refusedAll && now - stored.t <= days * DAY_MS && stored.t <= now + DAY_MS;
}

/** The purposes a GPC signal opts out of: optional ones marked gpcOptOut (sale, sharing, targeted ads). */
const gpcCovered = (config: SiteConfig): Purpose[] =>
  config.purposes.filter((p) => p.gpcOptOut && !p.required);

/**
 * Opt-out regions: whether the GPC signal must be recorded now as the visitor's opt-out (source
 * "gpc", no click), which happens once per configVersion. Not when this version already has a
 * decision, nor while an explicit opt-back-in still holds: a stored grant of a covered purpose can
 * only come from the visitor (a GPC record never grants one), and the visitor's later choice wins.
 */
export function gpcOptOutDue(config: SiteConfig, stored: StoredConsent | null, gpc: boolean, now: number) {
  const covered = gpcCovered(config);
  const policy = policyOf(config);
  if (!gpc || policy.regime !== 'opt-out' || covered.length === 0) return false;
  if (stored?.d && stored.v === config.configVersion) return false;
  const optedBackIn = covered.some((p) => stored?.d?.[p.key] === 'granted');
  return !(optedBackIn && stillHolds(stored?.v, stored?.t, policy, now));
}

/** `decisions` with every purpose the GPC signal covers denied: what a "gpc" record says. */
export function withGpcOptOut(config: SiteConfig, decisions: Decisions): Decisions {
  const out = { ...decisions };
  for (const p of gpcCovered(config)) out[p.key] = 'denied';
  return out;
}

/** Whether `decisions` honor the signal: every purpose it covers is denied (the view says so). */
export function honorsGpc(config: SiteConfig, decisions: Decisions | null): boolean {
  const covered = gpcCovered(config);
  return covered.length > 0 && covered.every((p) => decisions?.[p.key] === 'denied');
}
