import { GROUPS, isGroup } from './region-codes.ts';
import { DEFAULT_REGION_RULES, type RegionRule, resolveRegime } from './region-rules.ts';

/**
 * What of a config snapshot (channels/visitor-config.ts) decides whether visitors must be asked
 * again. Structural, so the stored VisitorConfig satisfies it as is; `regionRules` is optional
 * because snapshots stored before regions existed lack it (they meant the default rules).
 */
export interface MaterialSnapshot {
  privacyPolicy: { version: string };
  purposes: ReadonlyArray<{
    key: string;
    name: string;
    description: string | null;
    legalBasis: string;
    required: boolean;
  }>;
  regionRules?: readonly RegionRule[];
}

/**
 * Whether a new config version needs every visitor asked again (`reconsent`): a
 * purpose added; a purpose's legal basis, `required` flag, or default-language name or description
 * changed; the policy version changed; or any region's regime changed. Translations, technologies,
 * origins, cosmetics and removed purposes (less is done with the visitor's data, not more) are not
 * material. The first version (`previous` null) is.
 */
export function isReconsent(previous: MaterialSnapshot | null, next: MaterialSnapshot): boolean {
  if (previous === null) return true;
  if (previous.privacyPolicy.version !== next.privacyPolicy.version) return true;
  const before = new Map(previous.purposes.map((purpose) => [purpose.key, purpose]));
  for (const purpose of next.purposes) {
    const old = before.get(purpose.key);
    if (!old) return true;
    if (
      old.legalBasis !== purpose.legalBasis ||
      old.required !== purpose.required ||
      old.name !== purpose.name ||
      old.description !== purpose.description
    ) {
      return true;
    }
  }
  return regimesDiffer(
    previous.regionRules ?? DEFAULT_REGION_RULES,
    next.regionRules ?? DEFAULT_REGION_RULES,
  );
}

/**
 * Whether some visitor region gets a different regime under `a` than under `b`. Compares effect,
 * not text: reordering or regrouping rules that moves no region is not a change.
 *
 * Which regions to try: a region's regime depends only on which of the named codes match it. So one
 * region per distinct set of matching codes is enough: unknown (matches only `*`, like every region
 * no rule names), every named subdivision, and every country named alone or through a group (a
 * subdivision no rule names matches exactly what its country matches).
 */
export function regimesDiffer(a: readonly RegionRule[], b: readonly RegionRule[]): boolean {
  const probes = new Set<string>();
  for (const rule of [...a, ...b]) {
    for (const code of rule.regions) {
      if (isGroup(code)) for (const country of GROUPS[code]) probes.add(country);
      else if (code !== '*') probes.add(code);
    }
  }
  if (resolveRegime(a, null) !== resolveRegime(b, null)) return true;
  for (const region of probes) if (resolveRegime(a, region) !== resolveRegime(b, region)) return true;
  return false;
}

/**
 * The config's `consentRequiredSince`: the newest version with `reconsent: true`. Version 1 is
 * always one; 1 when the list has none (a channel with no recorded flags yet).
 */
export function consentRequiredSince(versions: Iterable<{ version: number; reconsent: boolean }>): number {
  let since = 1;
  for (const { version, reconsent } of versions) if (reconsent && version > since) since = version;
  return since;
}
