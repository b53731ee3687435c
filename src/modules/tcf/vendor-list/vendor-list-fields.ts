import { SourceError } from './vendor-list-source.ts';

/**
 * The field readers vendor-list-shape.ts builds a checked list with. Each returns a new value made
 * only of what it read (never the host's object itself), so a key the format does not have, such
 * as `__proto__` or `constructor`, is never carried along; a value of the wrong type or out of its
 * bounds throws a SourceError naming where it is.
 */

/**
 * Where a reader is: the file, and the path in it as a chain of keys (`vendors[2].purposes`),
 * spelled out only for an error. `size` adds up the JSON characters of what was kept, about: what
 * keeping the list in memory costs (tcf.service.ts), counted on the way instead of serializing it.
 */
export interface At {
  name: string;
  size: { chars: number };
  parent: At | null;
  key: string | number | null;
}

export const root = (name: string): At => ({ name, size: { chars: 0 }, parent: null, key: null });

export const at = (parent: At, key: string | number): At => ({
  name: parent.name,
  size: parent.size,
  parent,
  key,
});

function pathOf(where: At): string {
  let path = '';
  for (let node: At | null = where; node?.parent; node = node.parent) {
    const key = node.key as string | number;
    path =
      typeof key === 'number' || /^\d+$/.test(key)
        ? `[${key}]${path}`
        : /^\[/.test(key)
          ? `${key}${path}`
          : `.${key}${path}`;
  }
  return path.replace(/^\./, '');
}

export function fail(where: At, problem: string): never {
  throw new SourceError(`${where.name}: ${pathOf(where)} ${problem}`);
}

/** Counts a kept scalar (numbers, booleans, null: a few characters each). */
function kept<T>(where: At, value: T, chars = 6): T {
  where.size.chars += chars;
  return value;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value of an own key, or undefined (a key inherited from Object.prototype is not the host's). */
export const own = (object: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(object, key) ? object[key] : undefined;

export function wholeNumber(where: At, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(where, `is not a whole number from ${min} to ${max}`);
  }
  return kept(where, value);
}

export function finiteNumber(where: At, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(where, 'is not a number');
  return kept(where, value);
}

export function boolean(where: At, value: unknown): boolean {
  if (typeof value !== 'boolean') fail(where, 'is not true or false');
  return kept(where, value);
}

export function text(where: At, value: unknown, maxLength: number): string {
  if (typeof value !== 'string') fail(where, 'is not a string');
  if (value.length > maxLength) fail(where, `is longer than ${maxLength} characters`);
  return kept(where, value, value.length + 3);
}

/** Most ids one list may hold (IAB's lists hold a dozen at most). */
export const MAX_IDS_PER_LIST = 1000;

/** A list of ids from 1 to `maxId` (a vendor's purposes, a stack's special features …). */
export function idList(where: At, value: unknown, maxId: number): number[] {
  if (!Array.isArray(value) || value.length > MAX_IDS_PER_LIST) fail(where, 'is not a list of ids');
  where.size.chars += 2 + value.length * 3;
  return value.map((id) => {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > maxId) {
      fail(where, `is not a list of ids (each from 1 to ${maxId})`);
    }
    return id;
  });
}

/** Longest link kept. */
export const MAX_URL_LENGTH = 2048;
const HTTP_URL = /^https?:\/\/[^\s]/i;

/**
 * An http(s) link, or undefined: anything else (a `javascript:` link, a word) is left out, since
 * the layers show these as links; the rest of the vendor stays.
 */
export function httpUrl(where: At, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return undefined;
  return HTTP_URL.test(value) && URL.canParse(value) ? kept(where, value, value.length + 3) : undefined;
}

/** Keys never copied out of a host's object, whatever it holds. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const TREE_KEY = /^[A-Za-z0-9_.-]{1,100}$/;
const MAX_TREE_DEPTH = 8;
const MAX_TREE_ITEMS = 10_000;
export const MAX_TEXT_LENGTH = 20_000;

/**
 * Texts the format gives as nested objects whose inner shape this service does not read itself
 * (`standardTexts`): strings, numbers, booleans, null, arrays and objects, at most 8 levels deep;
 * keys that are not plain names (`__proto__`, `constructor` …) are left out.
 */
export function textTree(where: At, value: unknown, depth = 1): unknown {
  if (value === null || typeof value === 'boolean') return kept(where, value);
  if (typeof value === 'number') return finiteNumber(where, value);
  if (typeof value === 'string') return text(where, value, MAX_TEXT_LENGTH);
  if (depth > MAX_TREE_DEPTH) fail(where, `nests deeper than ${MAX_TREE_DEPTH} levels`);
  if (Array.isArray(value)) {
    if (value.length > MAX_TREE_ITEMS) fail(where, `holds more than ${MAX_TREE_ITEMS} items`);
    where.size.chars += 2 + value.length;
    return value.map((item, i) => textTree(at(where, i), item, depth + 1));
  }
  if (!isObject(value)) fail(where, 'is not JSON');
  const keys = Object.keys(value);
  if (keys.length > MAX_TREE_ITEMS) fail(where, `holds more than ${MAX_TREE_ITEMS} keys`);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (UNSAFE_KEYS.has(key) || !TREE_KEY.test(key)) continue;
    out[key] = textTree(at(where, key), value[key], depth + 1);
    where.size.chars += key.length + 4;
  }
  return out;
}

/**
 * A map keyed by id whose entries carry that id (IAB's shape for every list), ids from 1 to
 * `maxId`; `entry` reads each entry. Keys are digits, so none can be `__proto__`.
 */
export function idMap<T>(
  where: At,
  value: unknown,
  maxId: number,
  entry: (where: At, value: Record<string, unknown>, id: number) => T,
): Record<string, T> {
  if (!isObject(value)) fail(where, 'is not a map keyed by id');
  const out: Record<string, T> = {};
  for (const key of Object.keys(value)) {
    const item = value[key];
    const id = isObject(item) ? own(item, 'id') : undefined;
    if (!isObject(item) || typeof id !== 'number' || String(id) !== key) {
      fail(at(where, `[${JSON.stringify(key.slice(0, 20))}]`), 'is not an entry with that id');
    }
    wholeNumber(at(at(where, key), 'id'), id, 1, maxId);
    out[key] = entry(at(where, key), item, id);
    // The key, `"id":`, `"name":`, braces and commas.
    where.size.chars += key.length + 20;
  }
  return out;
}

/** Reads `key` of `object` with `read` when the host sent it; leaves it out otherwise. */
export function optional<T>(
  out: Record<string, unknown>,
  object: Record<string, unknown>,
  where: At,
  key: string,
  read: (where: At, value: unknown) => T | undefined,
): void {
  const value = own(object, key);
  if (value === undefined) return;
  const read_ = read(at(where, key), value);
  if (read_ === undefined) return;
  out[key] = read_;
  where.size.chars += key.length + 4;
}
