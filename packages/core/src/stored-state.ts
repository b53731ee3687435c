import type { PendingPost, StoredConsent } from '../../../sdk/src/types.ts';
import type { ConsentStorage } from './types.ts';

/**
 * What the client keeps in the app's storage, per site key (two channels in one app keep apart):
 * the decision in the web SDK's own shape (`{s, d, v, t}`, sdk/src/types.ts StoredConsent), so the
 * rules of regime.ts read it as they read the web's cookie, and the decisions not yet delivered.
 */
export function storageKeys(siteKey: string) {
  const safe = siteKey.replace(/[^A-Za-z0-9_-]/g, '');
  return {
    consent: `cs_consent_${safe}`,
    pending: `cs_pending_${safe}`,
    tc: `cs_tc_${safe}`,
    iabKeys: `cs_iab_keys_${safe}`,
  };
}

/** A stored value that does not parse (another app's key, a truncated write) reads as absent. */
async function readJson<T>(storage: ConsentStorage, key: string): Promise<T | null> {
  try {
    const raw = await storage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export async function readConsent(storage: ConsentStorage, siteKey: string): Promise<StoredConsent | null> {
  const value = await readJson<StoredConsent>(storage, storageKeys(siteKey).consent);
  return value && typeof value.s === 'string' ? value : null;
}

export async function writeConsent(storage: ConsentStorage, siteKey: string, value: StoredConsent | null) {
  const key = storageKeys(siteKey).consent;
  if (value) await storage.setItem(key, JSON.stringify(value));
  else await storage.removeItem(key);
}

export async function readPending(storage: ConsentStorage, siteKey: string): Promise<PendingPost[]> {
  const value = await readJson<PendingPost[]>(storage, storageKeys(siteKey).pending);
  return Array.isArray(value) ? value : [];
}

export async function writePending(storage: ConsentStorage, siteKey: string, queue: PendingPost[]) {
  const key = storageKeys(siteKey).pending;
  if (queue.length) await storage.setItem(key, JSON.stringify(queue));
  else await storage.removeItem(key);
}

/** The TC string made with the stored decision (and its AC string), on TCF channels. */
export interface StoredTc {
  tc: string;
  ac?: string;
}

export async function readTc(storage: ConsentStorage, siteKey: string): Promise<StoredTc | null> {
  const value = await readJson<StoredTc>(storage, storageKeys(siteKey).tc);
  return value && typeof value.tc === 'string' ? value : null;
}

export async function writeTc(storage: ConsentStorage, siteKey: string, value: StoredTc | null) {
  const key = storageKeys(siteKey).tc;
  if (value) await storage.setItem(key, JSON.stringify(value));
  else await storage.removeItem(key);
}

/** The IAB keys written last: kept so a restarted app still removes those it no longer sets. */
export async function readIabKeys(storage: ConsentStorage, siteKey: string): Promise<string[]> {
  const value = await readJson<string[]>(storage, storageKeys(siteKey).iabKeys);
  return Array.isArray(value) ? value : [];
}

export async function writeIabKeys(storage: ConsentStorage, siteKey: string, keys: string[]) {
  const key = storageKeys(siteKey).iabKeys;
  if (keys.length) await storage.setItem(key, JSON.stringify(keys));
  else await storage.removeItem(key);
}
