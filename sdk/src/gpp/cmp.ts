import { CmpApi, CmpStatus, SignalStatus } from '@iabgpp/cmpapi';
import { gppSectionFor, supportedUsApis } from '../../../src/shared/us-gpp-sections.ts';
import type { Decisions, GppHandle, Purpose } from '../types.ts';
import { answerFrames, stubbed } from './frames.ts';
import { setSectionFields, usSectionFields } from './section-fields.ts';
import { TCFEUV2, TCFEUV2_ID } from './tcfeuv2.ts';

/**
 * Which GPP section a visitor gets (gpp-applies.ts): US National; under a channel's `gppSections:
 * "state"`, the visitor's state section where it has one (src/shared/us-gpp-sections.ts); or the
 * EU TCF section.
 */
export type GppSection = 'usnat' | 'state' | 'tcfeuv2';

/** The handle of a page whose GPP carries the EU TCF section: it follows the TC string. */
export interface TcfGppHandle extends GppHandle {
  /** Makes `tcString` (built by tcf.js) the tcfeuv2 section; returns the GPP string. */
  updateTc(tcString: string): string;
}

/** This CMP's own version, as the GPP header's CmpVersion carries it. */
const CMP_VERSION = 1;

/**
 * Starts the IAB GPP CMP API on this page for a visitor of a US opt-out region (`region`, its
 * ISO 3166-2 code): `CmpApi` (the IAB's own implementation) replaces the stub's `window.__gpp`,
 * answers the calls the stub queued and the listeners it registered, and from then on every `__gpp`
 * command. The string is encoded by the library from the fields of usnat.ts, or of the state's
 * section (us/state-fields.ts), by section-fields.ts, which the headless core uses too; nothing here
 * encodes by hand.
 */
export function startGpp(
  cmpId: number,
  section: GppSection = 'usnat',
  region?: string | null,
): GppHandle | TcfGppHandle {
  if (section === TCFEUV2) return startTcfEuGpp(cmpId);
  const hadStub = stubbed();
  const cmp = new CmpApi(cmpId, CMP_VERSION);
  // The stub answers iframes' postMessage calls through whatever `__gpp` is now; without it, we do.
  if (!hadStub) answerFrames();
  const { id, name } = gppSectionFor(section, region);
  cmp.setSupportedAPIs(supportedUsApis(section));
  cmp.setApplicableSections([id]);
  cmp.setCmpStatus(CmpStatus.LOADED);
  let state = '';

  return {
    update(decisions: Decisions | null, purposes: Purpose[], gpc: boolean): string {
      const fields = usSectionFields(name, decisions, purposes, gpc);
      const next = JSON.stringify(fields);
      // The same state applied twice (recorded, then applied) changes nothing and fires nothing.
      if (next === state) return cmp.getGppString();
      // The spec's order: "not ready" before a section changes, then the change, then "ready".
      if (state !== '') cmp.setSignalStatus(SignalStatus.NOT_READY);
      state = next;
      setSectionFields(cmp, name, fields);
      cmp.fireSectionChange(name);
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
