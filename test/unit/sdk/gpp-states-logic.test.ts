import { GppModel, Sections, UsNat } from '@iabgpp/cmpapi';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startGpp } from '../../../sdk/src/gpp/cmp.ts';
import { STATE_SECTION_CLASSES, sectionShape } from '../../../sdk/src/gpp/us/sections.ts';
import { stateFields } from '../../../sdk/src/gpp/us/state-fields.ts';
import { usnatFields } from '../../../sdk/src/gpp/usnat.ts';
import type { Decisions } from '../../../sdk/src/types.ts';
import { gppStub } from '../../../src/modules/gpp/gpp-stub.ts';
import {
  gppSectionFor,
  supportedUsApis,
  US_STATE_SECTIONS,
  USNAT_SECTION,
} from '../../../src/shared/us-gpp-sections.ts';
import { purpose } from '../../helpers/sdk-purposes.ts';

/**
 * The table of state sections against the library's own, the fields
 * the SDK puts in each section (read back with @iabgpp/cmpapi's decoder), and the stub's list.
 * test/sdk/gpp-states.test.ts shows the same in Chromium through the snippet.
 */

const purposes = [
  purpose('necessary', { required: true }),
  purpose('analytics'),
  purpose('ads', { gpcOptOut: true }),
];
const GRANTED: Decisions = { necessary: 'granted', analytics: 'granted', ads: 'granted' };
const DENIED: Decisions = { necessary: 'granted', analytics: 'granted', ads: 'denied' };

/** Every state section the installed library encodes, by name, with its id. */
const LIBRARY_STATES = [...Sections.SECTION_ID_NAME_MAP].filter(([id]) => id > UsNat.ID);
const STATES = Object.entries(US_STATE_SECTIONS);

describe('the state sections table', () => {
  it('names every US state section the library encodes, with the library’s ids, and nothing else', () => {
    expect(LIBRARY_STATES.length).toBe(20);
    expect(STATES.map(([, s]) => [s.id, s.name]).sort((a, b) => +a[0] - +b[0])).toEqual(LIBRARY_STATES);
    expect(STATE_SECTION_CLASSES.map((c) => [c.ID, c.NAME])).toEqual(LIBRARY_STATES);
    // Each state's code spells its section (US-CA → usca).
    for (const [code, { name }] of STATES) expect(name).toBe(`us${code.slice(3).toLowerCase()}`);
  });

  it('"state" gives a state its section, anyone else usnat; "usnat" (and no mode) gives usnat to all', () => {
    expect(gppSectionFor('state', 'US-CA')).toEqual({ id: 8, name: 'usca' });
    expect(gppSectionFor('state', 'us-ri')).toEqual({ id: 27, name: 'usri' });
    for (const region of ['US-NY', 'US-WA', 'US', null, undefined]) {
      expect(gppSectionFor('state', region)).toEqual(USNAT_SECTION);
    }
    for (const mode of ['usnat', undefined] as const)
      expect(gppSectionFor(mode, 'US-CA')).toEqual(USNAT_SECTION);
    expect(supportedUsApis('usnat')).toEqual(['7:usnat']);
    expect(supportedUsApis('state')).toEqual(['7:usnat', ...LIBRARY_STATES.map(([id, n]) => `${id}:${n}`)]);
  });

  it('the generic rules give usnat exactly what usnat.ts gives it (one set of rules for all sections)', () => {
    const shape = new UsNat().toObj() as Record<string, unknown>;
    for (const [decisions, gpc] of [
      [null, false],
      [GRANTED, false],
      [DENIED, true],
    ] as const) {
      expect(stateFields(shape, decisions, purposes, gpc)).toEqual(usnatFields(decisions, purposes, gpc));
    }
  });
});

describe('the string of each state section (decoded by @iabgpp/cmpapi)', () => {
  afterEach(() => vi.unstubAllGlobals());

  function nodeWindow() {
    vi.stubGlobal('__gpp', undefined);
    vi.stubGlobal('window', globalThis);
    vi.stubGlobal('frames', { __gppLocator: {} });
    vi.stubGlobal('addEventListener', () => {});
    vi.stubGlobal('document', { body: null, createElement: () => ({ style: {} }) });
    new Function('window', 'document', gppStub(300, { sections: 'state' }))(globalThis, { body: null });
    return globalThis as unknown as { __gpp: (...args: any[]) => any };
  }

  it.each(STATES)(
    '%s: its section (%o), opt-outs and GPC as the purposes and the signal say',
    (code, section) => {
      const win = nodeWindow();
      let stubPing: any;
      win.__gpp('ping', (data: unknown) => (stubPing = data));
      expect(stubPing.supportedAPIs).toEqual(supportedUsApis('state'));
      const gpp = startGpp(300, 'state', code);
      const shape = sectionShape(section.name);
      const hasGpc = 'Gpc' in shape;
      for (const [decisions, gpc, optOut] of [
        [null, false, 2],
        [GRANTED, false, 2],
        [DENIED, true, 1],
      ] as const) {
        const model = new GppModel(gpp.update(decisions, purposes, gpc));
        expect(model.getHeader().SectionIds).toEqual([section.id]);
        const fields = model.getSection(section.name) as Record<string, unknown>;
        // Every field of the section is one the SDK decided, with the rules of state-fields.ts.
        expect(Object.keys(fields).sort()).toEqual(Object.keys(shape).sort());
        for (const name of ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut']) {
          if (name in shape) expect(fields[name], name).toBe(optOut);
        }
        for (const name of ['SaleOptOutNotice', 'SharingOptOutNotice', 'TargetedAdvertisingOptOutNotice']) {
          if (name in shape) expect(fields[name], name).toBe(1);
        }
        // The general notice, where the section has one (usca has only the opt-out notices).
        for (const name of ['SharingNotice', 'ProcessingNotice'])
          if (name in shape) expect(fields[name]).toBe(1);
        expect(fields.MspaCoveredTransaction).toBe(2);
        expect([fields.SensitiveDataProcessing ?? 0].flat().every((v) => v === 0)).toBe(true);
        expect([fields.KnownChildSensitiveDataConsents ?? 0].flat().every((v) => v === 0)).toBe(true);
        if (hasGpc) expect(fields.Gpc).toBe(gpc);
        else expect(fields.Gpc).toBeUndefined();
      }
      let ping: any;
      win.__gpp('ping', (data: unknown) => (ping = data));
      expect(ping).toMatchObject({
        cmpStatus: 'loaded',
        signalStatus: 'ready',
        supportedAPIs: supportedUsApis('state'),
        applicableSections: [section.id],
        sectionList: [section.id],
      });
    },
  );

  it('a channel without covered purposes: the opt-outs and their notices are not applicable (0)', () => {
    nodeWindow();
    const gpp = startGpp(300, 'state', 'US-TX');
    const fields = new GppModel(gpp.update(null, [purpose('analytics')], false)).getSection('ustx') as any;
    expect(fields).toMatchObject({
      ProcessingNotice: 1,
      SaleOptOutNotice: 0,
      SaleOptOut: 0,
      TargetedAdvertisingOptOut: 0,
    });
  });
});

// store-independent: the SDK's GPP state logic in Node, no service
