import type { FieldError } from './errors.ts';
import { findPlaceholder, placeholderProblem } from './placeholders.ts';

/**
 * What was wrong with a request Node's HTTP parser refused before any route saw it, read from the
 * bytes it kept (`rawPacket`). The common case is a command copied with a placeholder still in it
 * (`channelId=ch_…`): a byte outside printable ASCII in the address. The answer names the query
 * parameter (or the path) that holds it, so the problem says which part to fix, and gives the path
 * as the problem's `instance` when the path itself is clean. A placeholder is told as the same
 * request percent-encoded would be told by the route (placeholders.ts), naming its parameter.
 */
export interface RequestLineFault {
  detail: string;
  instance: string;
  /** The placeholder's parameter, as the route's answer would name it. */
  errors?: FieldError[];
}

/** A byte an HTTP request target may carry as it is (printable ASCII, no space). */
const printable = (byte: number) => byte > 0x20 && byte < 0x7f;

/** The path parameters of the route a method and (percent-encoded) path reach; null: no route. */
export type RouteParams = (method: string, path: string) => Record<string, unknown> | null;

/** The target with every byte outside printable ASCII percent-encoded, as a client should have sent it. */
const percentEncoded = (target: Buffer) =>
  Array.from(target, (byte) =>
    printable(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');

/** The placeholder's problem when the encoded request holds one, else null. */
function placeholderFault(method: string, target: Buffer, routeParams?: RouteParams) {
  const encoded = percentEncoded(target);
  const at = encoded.indexOf('?');
  const path = at === -1 ? encoded : encoded.slice(0, at);
  let query: Record<string, string> = {};
  try {
    query = Object.fromEntries(new URLSearchParams(at === -1 ? '' : encoded.slice(at + 1)));
  } catch {
    // A query that cannot be read names no parameter.
  }
  const found = findPlaceholder(routeParams?.(method, path) ?? null, query);
  if (!found) return null;
  const problem = placeholderProblem(found);
  return { detail: problem.detail, errors: problem.options.errors };
}

export function requestLineFault(
  raw: Buffer | undefined,
  routeParams?: RouteParams,
): RequestLineFault | null {
  if (!raw || raw.length === 0) return null;
  const end = raw.indexOf('\r\n');
  const line = raw.subarray(0, end === -1 ? Math.min(raw.length, 8192) : end);
  const start = line.indexOf(0x20) + 1;
  if (start <= 0) return null;
  // The target runs to the last space (before HTTP/1.x), or to the end of a line cut short.
  const version = line.lastIndexOf(' HTTP/');
  const target = line.subarray(start, version > start ? version : line.length);
  const bad = target.findIndex((byte) => !printable(byte));
  if (bad === -1) return null;
  const query = target.indexOf(0x3f); // '?'
  const path = target.subarray(0, query === -1 ? target.length : query);
  const instance = path.every(printable) ? path.toString('latin1') : '';
  const placeholder = placeholderFault(line.subarray(0, start - 1).toString('latin1'), target, routeParams);
  if (placeholder) return { ...placeholder, instance };
  const byte = `0x${target[bad].toString(16).toUpperCase().padStart(2, '0')}`;
  const fix = 'percent-encode it, or replace a placeholder such as ch_… with the real value';
  if (query === -1 || bad < query) {
    return {
      detail: `The request path holds a character that must be percent-encoded (byte ${byte}): ${fix}.`,
      instance,
    };
  }
  // The query parameter whose name or value holds the byte: the `&`-separated pair around it.
  const pairStart = target.lastIndexOf(0x26, bad) > query ? target.lastIndexOf(0x26, bad) + 1 : query + 1;
  const pair = target.subarray(pairStart, bad).toString('latin1');
  const name = pair.includes('=') ? pair.slice(0, pair.indexOf('=')) : null;
  const where = name && name.length > 0 ? `Query parameter ${name}` : 'The query';
  return {
    detail: `${where} holds a character that must be percent-encoded (byte ${byte}): ${fix}.`,
    instance,
  };
}
