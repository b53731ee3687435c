/**
 * What changed between two config versions of a channel, in words: each version is a full
 * snapshot of what visitors were shown (GET …/config-versions), so comparing it with the one
 * before says what its publication changed. Only what a visitor sees is compared.
 */
type Json = unknown;
interface Snapshot {
  defaultLanguage?: string;
  languages?: string[];
  privacyPolicy?: { url: string | null; version: string };
  regionRules?: Json;
  consentMaxAgeDays?: number;
  rejectCooldownDays?: number;
  gppCmpId?: number | null;
  tcf?: { vendors?: { id: number }[]; [k: string]: Json } | null;
  purposes?: ({ key: string } & Record<string, Json>)[];
  technologies?: ({ name: string } & Record<string, Json>)[];
}

const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);
const show = (v: Json) => (v === null || v === undefined ? 'none' : typeof v === 'object' ? '…' : String(v));

/** What a purpose's fields are called on screen. */
const PURPOSE_FIELDS: Record<string, string> = {
  name: 'name',
  description: 'description',
  legalBasis: 'legal basis',
  required: 'required',
  translations: 'translations',
  consentModeSignals: 'Consent Mode signals',
  gpcOptOut: 'GPC opt-out',
};

/** Items of a keyed list: added, removed, and changed (naming the fields that differ). */
function listChanges<T extends Record<string, Json>>(
  what: string,
  before: T[] = [],
  after: T[] = [],
  keyOf: (item: T) => string,
  fields?: Record<string, string>,
): string[] {
  const old = new Map(before.map((i) => [keyOf(i), i]));
  const now = new Map(after.map((i) => [keyOf(i), i]));
  const out: string[] = [];
  for (const [key, item] of now) {
    const was = old.get(key);
    if (!was) out.push(`${what} ${key} added`);
    else if (!same(was, item)) {
      const names = Object.keys({ ...was, ...item })
        .filter((f) => !same(was[f], item[f]))
        .map((f) => fields?.[f] ?? f);
      out.push(`${what} ${key}: ${names.join(', ')} changed`);
    }
  }
  for (const key of old.keys()) if (!now.has(key)) out.push(`${what} ${key} removed`);
  return out;
}

export function configChanges(before: Snapshot | undefined, after: Snapshot): string[] {
  if (!before) return ['First version'];
  const out: string[] = [];
  const scalar = (label: string, a: Json, b: Json) => {
    if (!same(a, b)) out.push(`${label}: ${show(a)} → ${show(b)}`);
  };
  out.push(...listChanges('Purpose', before.purposes, after.purposes, (p) => p.key, PURPOSE_FIELDS));
  out.push(...listChanges('Technology', before.technologies, after.technologies, (t) => t.name));
  scalar('Privacy policy version', before.privacyPolicy?.version, after.privacyPolicy?.version);
  scalar('Privacy policy URL', before.privacyPolicy?.url, after.privacyPolicy?.url);
  scalar('Default language', before.defaultLanguage, after.defaultLanguage);
  if (!same(before.languages, after.languages))
    out.push(`Languages: ${(after.languages ?? []).join(', ') || 'none'}`);
  if (!same(before.regionRules, after.regionRules)) out.push('Region rules changed');
  scalar('Ask again after (days)', before.consentMaxAgeDays, after.consentMaxAgeDays);
  scalar('Days without a banner after a refusal', before.rejectCooldownDays, after.rejectCooldownDays);
  scalar('GPP CMP ID', before.gppCmpId, after.gppCmpId);
  if (!before.tcf && after.tcf) out.push('IAB TCF turned on');
  else if (before.tcf && !after.tcf) out.push('IAB TCF turned off');
  else if (before.tcf && after.tcf && !same(before.tcf, after.tcf)) {
    const { vendors: a = [], ...restA } = before.tcf;
    const { vendors: b = [], ...restB } = after.tcf;
    out.push(
      ...listChanges('TCF vendor', a as Record<string, Json>[], b as Record<string, Json>[], (v) =>
        String(v.id),
      ),
    );
    for (const k of Object.keys({ ...restA, ...restB }))
      if (!same(restA[k], restB[k])) out.push(`TCF ${k}: ${show(restA[k])} → ${show(restB[k])}`);
  }
  return out.length ? out : ['Nothing a visitor sees'];
}
