import type { Decisions, Purpose } from '../types.ts';
import { sectionShape } from './us/sections.ts';
import { stateFields } from './us/state-fields.ts';
import { USNAT, type UsnatFields, usnatFields } from './usnat.ts';

/**
 * What takes a section's fields: `CmpApi` on a page (gpp.js) and `GppModel` in the headless core
 * (packages/core), both `@iabgpp/cmpapi`'s, which encode them. One function fills either, so a
 * choice makes the same GPP string in an app as on the web. No DOM here: the core imports it.
 */
export interface GppFieldTarget {
  setFieldValue(sectionName: string, fieldName: string, value: unknown): void;
}

/**
 * The fields of US section `name` (usnat, or a state's: src/shared/us-gpp-sections.ts) for the
 * visitor's state: usnat.ts's rules, or the same rules read off the state section's own fields.
 */
export function usSectionFields(
  name: string,
  decisions: Decisions | null,
  purposes: Purpose[],
  gpc: boolean,
): UsnatFields {
  return name === USNAT
    ? usnatFields(decisions, purposes, gpc)
    : stateFields(sectionShape(name), decisions, purposes, gpc);
}

/** Sets every field of `fields` in section `name` of `target`; the library encodes them. */
export function setSectionFields(target: GppFieldTarget, name: string, fields: UsnatFields) {
  for (const [field, value] of Object.entries(fields)) target.setFieldValue(name, field, value);
}
