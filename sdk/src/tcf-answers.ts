import type { TcfCmp } from './types.ts';

/** The version of IAB's CMP API that `ping` reports: the snippet's stub and tcf.js say the same. */
export const CMP_API_VERSION = '2.2';

type Callback = (value: unknown, ok?: boolean) => void;
type TcfApi = (command?: string, version?: unknown, callback?: Callback, parameter?: unknown) => unknown;

/**
 * The CMP API where tcf.js does not run, so that no vendor waits for an answer that never comes:
 * - `loaded`, outside opt-in regions: the TCF does not apply. `ping` says the CMP is loaded, and
 *   `getTCData` and `addEventListener` answer at once with what the CMP API prescribes when GDPR does
 *   not apply (gdprApplies false, the CMP's id and version, the policy version; no string), shaped
 *   as IAB's own @iabtechlabtcf/cmpapi shapes it (`eventStatus` tcloaded, a `listenerId`).
 * - `error`, when tcf.js or its vendor list could not be had: `ping` says so, and every other call
 *   is refused (success false), as the CMP API asks of a CMP in error.
 * It takes the snippet's stub's queue (calls made before the SDK ran) and `__tcfapi` itself, which
 * the stub's `__tcfapiLocator` messages call, so frames get the same answers.
 */
export function answerTcf(cmp: TcfCmp, cmpStatus: 'loaded' | 'error'): void {
  // `cmp` is the config's tcfCmp, exactly the fields the answers name: spread as it is.
  const win = window as unknown as { __tcfapi?: TcfApi };
  const queue = ((typeof win.__tcfapi === 'function' && win.__tcfapi()) || []) as Parameters<TcfApi>[];
  const listeners = new Set<number>();
  let lastListener = 0;
  const api: TcfApi = (command, version, callback, parameter) => {
    // Called with nothing: a CMP taking over asks for the queue, as it would of the stub.
    if (typeof callback !== 'function') return [];
    const data = { ...cmp, cmpStatus };
    const tcData = { ...data, eventStatus: 'tcloaded' };
    let value: unknown = null;
    // Version 2, or "the latest" (0, null, undefined); anything else is refused.
    if (version && +version !== 2) value = null;
    else if (command === 'ping')
      value = { ...data, cmpLoaded: true, displayStatus: 'disabled', apiVersion: CMP_API_VERSION };
    else if (cmpStatus === 'error') return callback(data, false);
    else if (command === 'getTCData') value = tcData;
    else if (command === 'addEventListener') {
      listeners.add(++lastListener);
      value = { ...tcData, listenerId: lastListener };
    } else if (command === 'removeEventListener') value = listeners.delete(parameter as number);
    // An unknown command: null and false.
    callback(value, value !== null);
  };
  win.__tcfapi = api;
  for (const call of queue) api(...call);
}
