import { fullFormats } from 'ajv-formats/dist/formats.js';
import { validationFailed } from './errors.ts';

const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/**
 * The API's date format: RFC 3339 UTC with whole seconds, e.g. 2026-11-21T10:00:00Z.
 * Formatted from the UTC fields rather than `toISOString().slice(…)`: a page of 20 channels
 * formats 60 dates, and this is about three times faster (the same output for four-digit years).
 */
export function apiDate(date: Date): string;
export function apiDate(date: Date | null | undefined): string | null;
export function apiDate(date: Date | null | undefined): string | null {
  if (!date) return null;
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return `${date.toISOString().slice(0, 19)}Z`;
  return `${year}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]}T${TWO_DIGITS[date.getUTCHours()]}:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}Z`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

// ajv-formats' RFC 3339 check of the calendar (days in the month, leap years) and the clock (hours,
// minutes, offsets): `new Date` alone rolls 2026-02-30 over to March 2 instead of refusing it.
const isCalendarDateTime = (fullFormats['date-time'] as { validate: (value: string) => boolean }).validate;

/** Parses an RFC 3339 date-time from a client; null when it is not one (or names no real instant). */
export function parseApiDate(value: string): Date | null {
  if (!RFC3339.test(value) || !isCalendarDateTime(value)) return null;
  const date = new Date(value);
  // Year 0000 is RFC 3339 but not PostgreSQL (no year zero): the query would fail with a 500.
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1) return null;
  return date;
}

/**
 * Bounds of an inclusive `from`/`to` filter at the resolution the API shows. Stored times carry
 * milliseconds but responses show whole seconds, so a client passing back a shown `occurredAt` as
 * `to` must still match that entry: `from` covers its whole second from the start, `to` to the end.
 */
export function startOfSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

export function endOfSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000 + 999);
}

/**
 * A date-time query filter (`from`, `to`, …): undefined when absent, 422 at `query:/<name>` when
 * it is not an RFC 3339 date-time the database can hold.
 */
export function queryDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = parseApiDate(value);
  if (!date) throw validationFailed([{ path: `query:/${name}`, message: 'must be an RFC 3339 date-time' }]);
  return date;
}
