import { CmpApi, CmpStatus, SignalStatus } from '@iabgpp/cmpapi';
import type { Decisions, GppHandle, Purpose } from '../types.ts';
import { answerFrames, stubbed } from './frames.ts';
import { USNAT, USNAT_ID, usnatFields } from './usnat.ts';

/** This CMP's own version, as the GPP header's CmpVersion carries it. */
const CMP_VERSION = 1;

/**
 * Starts the IAB GPP CMP API on this page for a visitor of a US opt-out region: `CmpApi` (the IAB's
 * own implementation) replaces the stub's `window.__gpp`, answers the calls the stub queued and the
 * listeners it registered, and from then on every `__gpp` command. The string is encoded by the
 * library from the fields of usnat.ts; nothing here encodes by hand.
 */
export function startGpp(cmpId: number): GppHandle {
  const hadStub = stubbed();
  const cmp = new CmpApi(cmpId, CMP_VERSION);
  // The stub answers iframes' postMessage calls through whatever `__gpp` is now; without it, we do.
  if (!hadStub) answerFrames();
  cmp.setSupportedAPIs([`${USNAT_ID}:${USNAT}`]);
  cmp.setApplicableSections([USNAT_ID]);
  cmp.setCmpStatus(CmpStatus.LOADED);
  let state = '';

  return {
    update(decisions: Decisions | null, purposes: Purpose[], gpc: boolean): string {
      const fields = usnatFields(decisions, purposes, gpc);
      const next = JSON.stringify(fields);
      // The same state applied twice (recorded, then applied) changes nothing and fires nothing.
      if (next === state) return cmp.getGppString();
      // The spec's order: "not ready" before a section changes, then the change, then "ready".
      if (state !== '') cmp.setSignalStatus(SignalStatus.NOT_READY);
      state = next;
      for (const [name, value] of Object.entries(fields)) cmp.setFieldValue(USNAT, name, value);
      cmp.fireSectionChange(USNAT);
      cmp.setSignalStatus(SignalStatus.READY);
      return cmp.getGppString();
    },
  };
}
