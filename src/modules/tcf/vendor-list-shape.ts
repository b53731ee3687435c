import { SourceError } from './vendor-list-source.ts';
import { DECLARATIONS } from './vendor-list-view.ts';

/**
 * Checks of what the host sent before it is stored: the GVL v3 format, whole version numbers, and
 * every map keyed by id. A list that fails is a failed fetch, so the mirror keeps the last good one
 * rather than storing something the routes and the TC string checks could not read.
 */

export interface CheckedVendorList {
  vendorListVersion: number;
  tcfPolicyVersion: number;
  lastUpdated: Date;
  body: Record<string, unknown>;
}

/** The fields of vendors and stacks that list ids of declarations (what slices and TC strings use). */
const ID_LISTS = [
  'purposes',
  'legIntPurposes',
  'flexiblePurposes',
  'specialPurposes',
  'features',
  'specialFeatures',
  'dataDeclaration',
] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const positiveInt = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2 ** 31 - 1;

/** A map keyed by id whose entries are objects carrying that id (IAB's shape for every list). */
function checkIdMap(value: unknown, field: string, name: string, optional = false): void {
  if (value === undefined && optional) return;
  if (!isObject(value)) throw new SourceError(`${name}: ${field} is not a map keyed by id`);
  for (const [key, entry] of Object.entries(value)) {
    if (!isObject(entry) || !positiveInt(entry.id) || String(entry.id) !== key) {
      throw new SourceError(
        `${name}: ${field}[${JSON.stringify(key.slice(0, 20))}] is not an entry with that id`,
      );
    }
    if (typeof entry.name !== 'string') throw new SourceError(`${name}: ${field}[${key}] has no name`);
    for (const list of ID_LISTS) {
      const ids = entry[list];
      if (ids !== undefined && !(Array.isArray(ids) && ids.every(positiveInt))) {
        throw new SourceError(`${name}: ${field}[${key}].${list} is not a list of ids`);
      }
    }
  }
}

/** `vendor-list.json` of GVL v3, or a SourceError saying what is wrong with it. */
export function checkVendorList(body: unknown, name = 'vendor-list.json'): CheckedVendorList {
  if (!isObject(body)) throw new SourceError(`${name} is not a JSON object`);
  if (body.gvlSpecificationVersion !== 3) {
    throw new SourceError(`${name}: gvlSpecificationVersion is not 3 (only the v3 format is read)`);
  }
  if (!positiveInt(body.vendorListVersion))
    throw new SourceError(`${name}: vendorListVersion is not a whole number`);
  if (!positiveInt(body.tcfPolicyVersion))
    throw new SourceError(`${name}: tcfPolicyVersion is not a whole number`);
  const lastUpdated = typeof body.lastUpdated === 'string' ? new Date(body.lastUpdated) : null;
  if (!lastUpdated || Number.isNaN(lastUpdated.getTime()))
    throw new SourceError(`${name}: lastUpdated is not a date`);
  for (const field of DECLARATIONS) checkIdMap(body[field], field, name, field === 'dataCategories');
  checkIdMap(body.vendors, 'vendors', name);
  return {
    vendorListVersion: body.vendorListVersion,
    tcfPolicyVersion: body.tcfPolicyVersion,
    lastUpdated,
    body,
  };
}

/** `purposes-<lang>.json`: the declarations translated (no vendors). */
export function checkLanguageFile(body: unknown, name: string): Record<string, unknown> {
  if (!isObject(body)) throw new SourceError(`${name} is not a JSON object`);
  for (const field of DECLARATIONS) checkIdMap(body[field], field, name, true);
  if (!isObject(body.purposes)) throw new SourceError(`${name}: purposes is not a map keyed by id`);
  return body;
}
