import { apiDate, parseApiDate } from '../../platform/http/dates.ts';
import { validationFailed } from '../../platform/http/errors.ts';
import type { VisitorConfig } from '../channels/channels.service.ts';
import type { RecordInput } from '../evidence/evidence.service.ts';

type EvidenceImport = NonNullable<RecordInput['importedFrom']>;

/** How far ahead of the service's clock an imported choice's time may be: visitors' clocks drift. */
export const IMPORT_CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** What a preferences body says of an import (consent.schemas.ts): the source and its importedFrom. */
export interface ImportInput {
  source?: string;
  importedFrom?: { cmp: EvidenceImport['cmp']; recordedAt: string; value: string };
}

/**
 * The `importedFrom` to record with a decision imported from the site's previous CMP
 * (docs/guides/keep-the-choice.md), or undefined for any other decision. Pure; each refusal is a 422
 * naming the member:
 *
 * - source "import" comes with importedFrom, and importedFrom only with it;
 * - its cmp is one the notice answered imports from (the channel's `imports` at that configVersion);
 * - its recordedAt (when the visitor chose there) is an RFC 3339 time, not ahead of `now` by more
 *   than IMPORT_CLOCK_SKEW_MS, and younger than the notice's consentMaxAgeDays: an older choice
 *   would be asked again, so it is not carried over. It is kept at whole seconds, in UTC;
 * - its value (the raw cookie, printable ASCII, at most 4,096 characters) is bounded by the schema.
 */
export function importedFrom(
  notice: VisitorConfig,
  input: ImportInput,
  now: Date,
): EvidenceImport | undefined {
  const given = input.importedFrom;
  if (input.source !== 'import') {
    if (given === undefined) return undefined;
    throw validationFailed([{ path: '/importedFrom', message: 'is sent only with source "import"' }]);
  }
  if (given === undefined) {
    throw validationFailed([
      { path: '/importedFrom', message: 'is required with source "import": {cmp, recordedAt, value}' },
    ]);
  }
  const cmps = notice.imports.map((entry) => entry.from);
  if (!cmps.includes(given.cmp)) {
    throw validationFailed([
      {
        path: '/importedFrom/cmp',
        message: `is not a CMP configVersion ${notice.configVersion} of this channel imports from (${cmps.length > 0 ? cmps.join(', ') : 'none: its imports are []'})`,
      },
    ]);
  }
  const at = parseApiDate(given.recordedAt);
  if (!at) {
    throw validationFailed([{ path: '/importedFrom/recordedAt', message: 'must be an RFC 3339 date-time' }]);
  }
  if (at.getTime() > now.getTime() + IMPORT_CLOCK_SKEW_MS) {
    throw validationFailed([
      {
        path: '/importedFrom/recordedAt',
        message: `is in the future (the service's time is ${apiDate(now)})`,
      },
    ]);
  }
  if (now.getTime() - at.getTime() >= notice.consentMaxAgeDays * DAY_MS) {
    throw validationFailed([
      {
        path: '/importedFrom/recordedAt',
        message: `is ${notice.consentMaxAgeDays} days old or older (the channel's consentMaxAgeDays): ask the visitor instead`,
      },
    ]);
  }
  return { cmp: given.cmp, recordedAt: apiDate(at), value: given.value };
}
