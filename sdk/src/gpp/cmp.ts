import { CmpApi, CmpStatus, SignalStatus } from '@iabgpp/cmpapi';
import type { Decisions, GppHandle, Purpose } from '../types.ts';
import { answerFrames, stubbed } from './frames.ts';
import { TCFEUV2, TCFEUV2_ID } from './tcfeuv2.ts';
import { USNAT, USNAT_ID, usnatFields } from './usnat.ts';

/** Which GPP section a visitor gets (gpp-applies.ts): US National, or the EU TCF section. */
export type GppSection = 'usnat' | 'tcfeuv2';

/** The handle of a page whose GPP carries the EU TCF section: it follows the TC string. */
export interface TcfGppHandle extends GppHandle {
  /** Makes `tcString` (built by tcf.js) the tcfeuv2 section; returns the GPP string. */
  updateTc(tcString: string): string;
}

/** This CMP's own version, as the GPP header's CmpVersion carries it. */
const CMP_VERSION = 1;

/**
 * Starts the IAB GPP CMP API on this page for a visitor of a US opt-out region: `CmpApi` (the IAB's
 * own implementation) replaces the stub's `window.__gpp`, answers the calls the stub queued and the
 * listeners it registered, and from then on every `__gpp` command. The string is encoded by the
 * library from the fields of usnat.ts; nothing here encodes by hand.
 */
export function startGpp(cmpId: number, section: GppSection = 'usnat'): GppHandle | TcfGppHandle {
  if (section === TCFEUV2) return startTcfEuGpp(cmpId);
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

/**
 * The GPP CMP API carrying the EU TCF section. Until the visitor's TC string exists (the layers are
 * showing) the signal stays "not ready", as the GPP CMP API asks of a CMP waiting for the user;
 * `update` (the SDK's usnat call) has nothing to say here and only returns the current string.
 */
function startTcfEuGpp(cmpId: number): TcfGppHandle {
  const hadStub = stubbed();
  const cmp = new CmpApi(cmpId, CMP_VERSION);
  if (!hadStub) answerFrames();
  cmp.setSupportedAPIs([`${TCFEUV2_ID}:${TCFEUV2}`]);
  cmp.setApplicableSections([TCFEUV2_ID]);
  cmp.setCmpStatus(CmpStatus.LOADED);
  let state = '';
  return {
    update: () => (state === '' ? '' : cmp.getGppString()),
    updateTc(tcString: string): string {
      if (tcString === state) return cmp.getGppString();
      if (state !== '') cmp.setSignalStatus(SignalStatus.NOT_READY);
      state = tcString;
      cmp.setSectionString(TCFEUV2, tcString);
      cmp.fireSectionChange(TCFEUV2);
      cmp.setSignalStatus(SignalStatus.READY);
      return cmp.getGppString();
    },
  };
}
