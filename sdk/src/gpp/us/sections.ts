import {
  UsCa,
  UsCo,
  UsCt,
  UsDe,
  UsFl,
  UsIa,
  UsIn,
  UsKy,
  UsMd,
  UsMn,
  UsMt,
  UsNe,
  UsNh,
  UsNj,
  UsOr,
  UsRi,
  UsTn,
  UsTx,
  UsUt,
  UsVa,
} from '@iabgpp/cmpapi';

/** The US state sections as `@iabgpp/cmpapi` encodes them (src/shared/us-gpp-sections.ts maps regions to them). */
export const STATE_SECTION_CLASSES = [
  UsCa,
  UsVa,
  UsCo,
  UsUt,
  UsCt,
  UsFl,
  UsMt,
  UsOr,
  UsTx,
  UsDe,
  UsIa,
  UsNe,
  UsNh,
  UsNj,
  UsTn,
  UsMn,
  UsMd,
  UsIn,
  UsKy,
  UsRi,
];

/** A section's fields with the library's defaults (its field names, and each array's length). */
export function sectionShape(name: string): Record<string, unknown> {
  const Section = STATE_SECTION_CLASSES.find((section) => section.NAME === name);
  if (!Section) throw new Error(`no GPP section ${name}`);
  return new Section().toObj() as Record<string, unknown>;
}
