import type { FieldError } from '../../platform/http/errors.ts';
import type { ChannelImport } from './channels.tables.ts';
import { IMPORT_CATEGORY_PATTERNS, type ImportCmp } from './first-party.schemas.ts';

/**
 * The rules of a channel's `imports` (docs/guides/keep-the-choice.md, "Importing from your old
 * CMP"): each CMP at most once; their category ids in the shape that CMP writes them (OneTrust
 * group ids such as C0002, Cookiebot's three optional categories, TCF purposes 1–11); our side an
 * active optional purpose of the channel (a required one is always granted, so importing it would
 * mean nothing).
 */

const WHAT: Record<ImportCmp, string> = {
  onetrust: 'a OneTrust group id such as C0002',
  cookiebot: 'a Cookiebot category: preferences, statistics or marketing',
  tcf: 'a TCF purpose id from 1 to 11',
};
const CATEGORY = Object.fromEntries(
  Object.entries(IMPORT_CATEGORY_PATTERNS).map(([cmp, pattern]) => [cmp, new RegExp(pattern)]),
) as Record<ImportCmp, RegExp>;

/** JSON Pointer escaping (RFC 6901) of one member name. */
const pointerName = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

export function cmpImportErrors(
  imports: readonly ChannelImport[],
  purposes: ReadonlyArray<{ key: string; required: boolean; status: string }>,
): FieldError[] {
  const optional = new Set(purposes.filter((p) => p.status === 'active' && !p.required).map((p) => p.key));
  const required = new Set(purposes.filter((p) => p.status === 'active' && p.required).map((p) => p.key));
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  imports.forEach((entry, i) => {
    if (seen.has(entry.from)) {
      errors.push({
        path: `/imports/${i}/from`,
        message: `${entry.from} is listed twice; list each CMP once`,
      });
    }
    seen.add(entry.from);
    for (const [theirs, ours] of Object.entries(entry.purposes)) {
      const at = `/imports/${i}/purposes/${pointerName(theirs)}`;
      if (!CATEGORY[entry.from].test(theirs)) {
        errors.push({ path: at, message: `is not ${WHAT[entry.from]}` });
      } else if (required.has(ours)) {
        errors.push({
          path: at,
          message: `${ours} is a required purpose: it is always granted, nothing to import`,
        });
      } else if (!optional.has(ours)) {
        errors.push({ path: at, message: `${ours.slice(0, 40)} is not an active purpose of the channel` });
      }
    }
  });
  return errors.slice(0, 50);
}

/**
 * The imports a visitor config carries: each mapping to a purpose the config still has as optional
 * (a purpose archived or made required since the mapping was saved drops out, as a technology's
 * purpose keys do), and a CMP left with no mapping dropped.
 */
export function shownImports(
  imports: readonly ChannelImport[],
  optionalKeys: ReadonlySet<string>,
): ChannelImport[] {
  const shown: ChannelImport[] = [];
  for (const entry of imports) {
    const purposes = Object.fromEntries(
      Object.entries(entry.purposes)
        .filter(([, ours]) => optionalKeys.has(ours))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    if (Object.keys(purposes).length > 0) shown.push({ from: entry.from, purposes });
  }
  return shown;
}
