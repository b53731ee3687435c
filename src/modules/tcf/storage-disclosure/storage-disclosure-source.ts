import { guardedGet } from '../vendor-list/guarded-get.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan, SourceError } from '../vendor-list/vendor-list-source.ts';
import { checkStorageDisclosure, type StorageDisclosure } from './storage-disclosure-shape.ts';

/**
 * Fetches one vendor's device storage disclosure from its `deviceStorageDisclosureUrl`. The URL is
 * the vendor's (published through IAB's list), so the worker treats it as any outside address:
 * through the address guard, without redirects, bounded in time and size (guarded-get.ts).
 */

/** IAB's files are a few KiB; a vendor with hundreds of cookies stays far below this. */
export const MAX_DISCLOSURE_BYTES = 256 * 1024;
export const DISCLOSURE_TIMEOUT_MS = 10_000;

export interface DisclosureFetchOptions {
  /** TCF_DISCLOSURE_ALLOW_PRIVATE_TARGETS: private addresses and plain http (tests, local setups). */
  allowPrivate: boolean;
  timeoutMs?: number;
}

/** The vendor's checked disclosure, or a SourceError saying why not (never the body). */
export async function fetchStorageDisclosure(
  raw: string,
  options: DisclosureFetchOptions,
): Promise<StorageDisclosure> {
  const { text } = await guardedGet(raw, {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs ?? DISCLOSURE_TIMEOUT_MS,
    maxBytes: MAX_DISCLOSURE_BYTES,
    accept: 'application/json',
  });
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new SourceError('the file nests too deep');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SourceError('the file is not valid JSON');
  }
  return checkStorageDisclosure(body);
}
