import type { Decisions, StoredConsent } from './types.ts';

/*
 * The pure half of signing in, shared by the web SDK and the headless core (packages/core): what
 * the account's choice is, and which choice holds on a device. identity/account.ts does the web's fetch.
 */

/** The account's current choice, as `POST …/identity` answers it; null: the account has none yet. */
export interface AccountChoice {
  purposes: Decisions;
  configVersion: number;
  /** RFC 3339. */
  recordedAt: string;
  /** The TC string made with the account's newest decision, on TCF channels (tcf.js applies it). */
  tcString?: string | null;
  /** The Google Additional Consent string sent with that decision, on channels with providers. */
  addtlConsent?: string | null;
}

/**
 * Which choice holds on this device at sign-in (docs/guides/signed-in-visitors.md): the newest
 * explicit one. The account's, when it is newer than this device's own (or the device has none):
 * it is copied here, keeping the device's id. The device's, when it made its own explicit choice
 * after the account's (a GPC record is not one): `upload` says it must be recorded for the account.
 */
export function reconcile(
  device: StoredConsent | null,
  account: AccountChoice | null,
): { stored: StoredConsent | null; upload: boolean } {
  const accountAt = account ? Date.parse(account.recordedAt) : Number.NaN;
  const deviceOwn = device?.d && !device.g && typeof device.t === 'number' ? device : null;
  if (deviceOwn && (!account || !(accountAt >= deviceOwn.t!))) return { stored: deviceOwn, upload: true };
  if (!account) return { stored: device, upload: false };
  return {
    stored: { s: device?.s ?? '', d: { ...account.purposes }, v: account.configVersion, t: accountAt },
    upload: false,
  };
}
