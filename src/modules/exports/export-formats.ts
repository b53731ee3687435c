import type { ExportFormat } from './exports.tables.ts';

/**
 * CSV columns of an export line, as dotted paths into the event: one column per scalar
 * field, nested objects flattened with dots, decisions as a JSON string). The order follows
 * `GET /v1/evidence/:id`.
 */
export const CSV_COLUMNS = [
  'id',
  'type',
  'channelId',
  'environment',
  'subject.pseudonym',
  'decisions',
  'configVersion',
  'policyVersion',
  'source',
  'language',
  'gpc',
  'origin',
  'userAgent',
  'ipPrefix',
  'recordedAt',
  'receipt.hash',
  // Empty on events recorded before regions existed (docs/regions.md).
  'region',
  'regionSource',
  'regime',
  'gppString',
  // Empty unless the decision carried a TC string (docs/guides/tcf.md); the id lists as JSON.
  'tcString',
  'tcf.vendorListVersion',
  'tcf.purposeConsents',
  'tcf.vendorConsents',
  'tcf.specialFeatureOptins',
  // Empty on events recorded before the service kept them.
  'tcf.purposeLegitimateInterests',
  'tcf.vendorLegitimateInterests',
  'tcf.vendorsDisclosed',
  'tcf.policyVersion',
  'tcf.consentScreen',
  // Empty unless the string carried the channel's purposes, or an Additional Consent string was sent.
  'tcf.publisherCustomConsents',
  'tcf.addtlConsent',
  // "account" or "device"; empty on events recorded before accounts existed (device decisions).
  'subjectKind',
  // true when the page showed that the visitor's GPC signal was honoured; empty otherwise.
  'gpcHonoredShown',
  // Source handoff: the origin (or, into a WebView, the app) the visitor came from and the event
  // handed over; empty otherwise.
  'handoff.fromOrigin',
  'handoff.eventId',
  // Source import: the previous CMP, when the visitor chose there, its raw cookie; empty otherwise.
  'importedFrom.cmp',
  'importedFrom.recordedAt',
  'importedFrom.value',
  // An app channel's decision: the app that sent it (docs/guides/apps.md); empty otherwise.
  'app.appId',
  'app.platform',
  'app.sdkVersion',
  // Last, so the columns before it keep their places: set on a handoff from an app.
  'handoff.fromApp',
] as const;

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
};

/** Turns export lines (plain JSON objects) into the bytes of one format. */
export interface LineEncoder {
  /** Text written before the first line (the CSV header row), or ''. */
  header(): string;
  line(event: Record<string, unknown>): string;
}

export function createEncoder(format: ExportFormat, extraColumns: readonly string[] = []): LineEncoder {
  if (format === 'jsonl') {
    return { header: () => '', line: (event) => `${JSON.stringify(event)}\n` };
  }
  const columns = [...CSV_COLUMNS, ...extraColumns];
  return {
    header: () => csvRow(columns),
    line: (event) => csvRow(columns.map((column) => csvCell(valueAt(event, column)))),
  };
}

function valueAt(event: Record<string, unknown>, dotted: string): unknown {
  let value: unknown = event;
  for (const part of dotted.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A value as cell text: objects and arrays (decisions, an audit path) as JSON, absent as empty. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Spreadsheet programs run a cell that starts with `=`, `+`, `-` or `@` as a formula, and tab or CR
 * can smuggle one past a naive check (OWASP "CSV injection"). A user agent or origin is visitor
 * input, so such cells get a leading `'`: spreadsheets show the text, and a program reading the CSV
 * sees the prefix and can strip it. No value the service itself writes starts with these characters.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One RFC 4180 field: quoted when it holds a quote, comma, CR or LF, inner quotes doubled. */
export function csvField(text: string): string {
  const safe = neutralizeFormula(text);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One RFC 4180 record, CRLF-terminated. */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}
