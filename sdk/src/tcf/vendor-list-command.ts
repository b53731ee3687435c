import { CmpApiModel } from '@iabtechlabtcf/cmpapi';
import type { VendorList } from '@iabtechlabtcf/core';
import { GVL } from '@iabtechlabtcf/core';

type Callback = (value: unknown, ok?: boolean) => void;
type TcfApi = (command: string, version: unknown, callback: Callback, ...parameters: unknown[]) => unknown;

/** The versions a call may name: 2, or "the latest" (0, null, undefined); a string of them too. */
const supported = (version: unknown) => version == null || [0, 2].includes(Number(version));

/**
 * The vendor list a `getVendorList` call asks for: the version of the visitor's string when it
 * names none, the newest on `'LATEST'`, else the version named (an integer greater than 1, or its
 * string), fetched as the channel's slice of that version. Rejects an invalid or unknown version.
 */
async function vendorListFor(latest: GVL, parameter: unknown): Promise<VendorList> {
  const newest = latest.vendorListVersion;
  const version =
    parameter === undefined
      ? Number(CmpApiModel.tcModel?.vendorListVersion) || newest
      : parameter === 'LATEST'
        ? newest
        : Number(parameter);
  if (!Number.isInteger(version) || version < 2) throw new Error(`no vendor list version ${parameter}`);
  if (version === newest) return latest.getJson();
  const gvl = new GVL(version);
  await gvl.readyPromise;
  return gvl.getJson();
}

/**
 * Puts the service's `getVendorList` in front of IAB's CmpApi (already installed as `__tcfapi`): the
 * library leaves the callback uncalled when a version cannot be fetched, where the CMP API asks for
 * `null` and success false, at once. Every other call, and calls of versions the API does not
 * support, go to the library as before. `latest` is the channel's slice of the newest list, which
 * answers most calls without a request.
 */
export function answerVendorList(latest: GVL): void {
  const win = window as unknown as { __tcfapi: TcfApi };
  const cmpApi = win.__tcfapi;
  win.__tcfapi = (command, version, callback, ...parameters) => {
    if (command !== 'getVendorList' || typeof callback !== 'function' || !supported(version))
      return cmpApi(command, version, callback, ...parameters);
    vendorListFor(latest, parameters[0]).then(
      (list) => callback(list, true),
      () => callback(null, false),
    );
  };
}
