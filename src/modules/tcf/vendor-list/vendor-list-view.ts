import { DECLARATIONS } from './vendor-list-shape.ts';

/**
 * What the routes make of a stored vendor list (its body as IAB published it): the whole list as
 * arrays for the console's vendor picker, and one channel's slice in IAB's own GVL v3 shape for the
 * browser (tcf.js reads it with @iabtechlabtcf/core's GVL). Pure: the same body gives the same bytes,
 * which is what makes a slice cacheable for ever.
 */

type Entry = Record<string, unknown> & { id: number; name: string };
type IdMap<T extends Entry = Entry> = Record<string, T>;

export interface GvlVendor extends Entry {
  purposes?: number[];
  legIntPurposes?: number[];
  flexiblePurposes?: number[];
  specialPurposes?: number[];
  features?: number[];
  specialFeatures?: number[];
  dataDeclaration?: number[];
  deletedDate?: string;
}

interface GvlStack extends Entry {
  purposes?: number[];
  specialFeatures?: number[];
}

type Declaration = (typeof DECLARATIONS)[number];

/**
 * A vendor IAB removes stays in the list with its deletedDate, from which it must no longer be
 * disclosed or chosen (a date in the future announces a removal). Deleted at `at`: when the date
 * has come, or cannot be read. The views below judge at the list's own lastUpdated, so a version's
 * slice is the same bytes for ever; choosing a vendor is judged now (tcf-settings.service.ts).
 */
export function isDeleted(vendor: GvlVendor, at: Date): boolean {
  if (vendor.deletedDate === undefined) return false;
  const deleted = Date.parse(vendor.deletedDate);
  return Number.isNaN(deleted) || deleted <= at.getTime();
}

/** When a stored list was published: the time its views judge deletions at. */
const publishedAt = (body: Record<string, unknown>) => new Date(String(body.lastUpdated));

const mapOf = <T extends Entry = Entry>(body: Record<string, unknown>, field: string): IdMap<T> =>
  (body[field] ?? {}) as IdMap<T>;

const byId = <T extends Entry>(map: IdMap<T>): T[] => Object.values(map).sort((a, b) => a.id - b.id);

/** Longest `?q=` the API accepts; a vendor name is far shorter. */
export const MAX_VENDOR_QUERY = 100;

/**
 * The list as arrays sorted by id (the API's `GET /v1/tcf/vendor-list`): every declaration, and the
 * vendors not deleted whose name contains `query` (case-insensitive) when one is given.
 */
export function vendorListArrays(body: Record<string, unknown>, query?: string) {
  const needle = query?.trim().toLocaleLowerCase('en');
  const vendors = byId(mapOf<GvlVendor>(body, 'vendors'))
    .filter(
      (v) => !isDeleted(v, publishedAt(body)) && (!needle || v.name.toLocaleLowerCase('en').includes(needle)),
    )
    .map(withIdLists);
  const list = (d: Exclude<Declaration, 'stacks'>) => byId(mapOf(body, d));
  return {
    purposes: list('purposes'),
    specialPurposes: list('specialPurposes'),
    features: list('features'),
    specialFeatures: list('specialFeatures'),
    stacks: byId(mapOf<GvlStack>(body, 'stacks')).map((s) => ({
      ...s,
      purposes: s.purposes ?? [],
      specialFeatures: s.specialFeatures ?? [],
    })),
    dataCategories: list('dataCategories'),
    vendors,
  };
}

/** What a vendor declares by id lists (the snapshot's order too: tcf-settings.service.ts). */
export const VENDOR_ID_LISTS = [
  'purposes',
  'legIntPurposes',
  'flexiblePurposes',
  'specialPurposes',
  'features',
  'specialFeatures',
] as const;

/** A vendor with every id list present (an older list may leave an empty one out). */
function withIdLists(vendor: GvlVendor) {
  const lists = Object.fromEntries(VENDOR_ID_LISTS.map((k) => [k, vendor[k] ?? []])) as Record<
    (typeof VENDOR_ID_LISTS)[number],
    number[]
  >;
  return { ...vendor, ...lists };
}

/** What a language file replaces in an entry: its words, never its ids or the purposes a stack groups. */
const TRANSLATED = ['name', 'description', 'illustrations', 'standardTexts'] as const;

function translate<T extends Entry>(entry: T, translated: Entry | undefined): T {
  if (!translated) return entry;
  const words = Object.fromEntries(TRANSLATED.filter((k) => k in translated).map((k) => [k, translated[k]]));
  return { ...entry, ...words };
}

const pick = <T extends Entry>(map: IdMap<T>, ids: Set<number>, translated?: IdMap): IdMap<T> =>
  Object.fromEntries(
    byId(map)
      .filter((e) => ids.has(e.id))
      .map((e) => [String(e.id), translate(e, translated?.[String(e.id)])]),
  );

/**
 * One channel's part of a list, in IAB's GVL v3 shape (maps keyed by id): the chosen vendors that
 * are in the list and not deleted, and only the purposes, special purposes, features, special
 * features and data categories they declare, and the stacks made only of those purposes and
 * special features. `translation` (a `purposes-<lang>.json`) replaces the declarations' words.
 */
export function vendorListSlice(
  body: Record<string, unknown>,
  vendorIds: number[],
  translation: Record<string, unknown> | null,
  /** Each vendor's checked storage disclosure, by vendor id (storage-disclosure-mirror.ts). */
  storage: ReadonlyMap<number, Record<string, unknown>> = new Map(),
): Record<string, unknown> {
  const chosen = new Set(vendorIds);
  const vendors = byId(mapOf<GvlVendor>(body, 'vendors')).filter(
    (v) => chosen.has(v.id) && !isDeleted(v, publishedAt(body)),
  );
  const used = (field: keyof GvlVendor) =>
    new Set(vendors.flatMap((v) => (v[field] as number[] | undefined) ?? []));
  const purposes = new Set([...used('purposes'), ...used('legIntPurposes'), ...used('flexiblePurposes')]);
  const specialFeatures = used('specialFeatures');
  const stackIds = new Set(
    byId(mapOf<GvlStack>(body, 'stacks'))
      .filter((s) => {
        const sp = s.purposes ?? [];
        const sf = s.specialFeatures ?? [];
        return (
          sp.length + sf.length > 0 &&
          sp.every((p) => purposes.has(p)) &&
          sf.every((f) => specialFeatures.has(f))
        );
      })
      .map((s) => s.id),
  );
  const ids: Record<Declaration, Set<number>> = {
    purposes,
    specialPurposes: used('specialPurposes'),
    features: used('features'),
    specialFeatures,
    stacks: stackIds,
    dataCategories: used('dataDeclaration'),
  };
  const declarations = Object.fromEntries(
    DECLARATIONS.map((d) => [
      d,
      pick(mapOf(body, d), ids[d], translation ? mapOf(translation, d) : undefined),
    ]),
  );
  return {
    gvlSpecificationVersion: body.gvlSpecificationVersion,
    vendorListVersion: body.vendorListVersion,
    tcfPolicyVersion: body.tcfPolicyVersion,
    lastUpdated: body.lastUpdated,
    ...declarations,
    // The texts policy 5.0.b asks CMPs to show as published (TCF v2.4), in the slice's language.
    ...standardTextsOf(body, translation),
    vendors: Object.fromEntries(
      vendors.map((v) => {
        const disclosure = storage.get(v.id);
        return [String(v.id), { ...withIdLists(v), ...(disclosure && { deviceStorage: disclosure }) }];
      }),
    ),
  };
}

/** The list's `standardTexts`, replaced by the translation's when the language file has them. */
function standardTextsOf(body: Record<string, unknown>, translation: Record<string, unknown> | null) {
  const texts = translation?.standardTexts ?? body.standardTexts;
  return texts === undefined ? {} : { standardTexts: texts };
}
