import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { browserSkipReason } from './harness.ts';
import { heard, LAYERS, TCF_SETTINGS, tcfapi, tcfFixture } from './tcf-helpers.ts';

/**
 * A visitor whose region the service cannot tell (no geo header, no declared region), on a TCF
 * channel whose rules ask only in Europe (docs/guides/tcf.md, "Visitors whose region is unknown"):
 * by default the TCF applies to them (the layers, `gdprApplies: true`); with
 * `tcf.unknownRegion: "not_applicable"` the channel's rules decide, and here they do not ask.
 */
const EUROPE_ONLY = [
  { regions: ['FR', 'DE'], regime: 'opt-in' },
  { regions: ['*'], regime: 'opt-out' },
];

describe.skipIf(skipWith(browserSkipReason))('TCF for a visitor of unknown region, in Chromium', () => {
  const f = tcfFixture();

  async function europeOnlySite(unknownRegion?: 'gdpr' | 'not_applicable') {
    const site = await f.tcfSite({ ...TCF_SETTINGS, ...(unknownRegion && { unknownRegion }) });
    const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, {
      key: f.key,
      body: { regionRules: EUROPE_ONLY },
    });
    expect(res.status, res.text).toBe(200);
    return site;
  }

  it('by default the layers ask, and the CMP says GDPR applies', async () => {
    const site = await europeOnlySite();
    const { page, context } = await f.visit(site, '');
    await page.locator(LAYERS).waitFor();
    await heard(page, 'cmpuishown');
    expect((await tcfapi(page, 'getTCData')).value).toMatchObject({ gdprApplies: true, cmpStatus: 'loaded' });
    await context.close();
  });

  it('with unknownRegion "not_applicable" the rules decide: no layers, and the CMP says GDPR does not apply', async () => {
    const site = await europeOnlySite('not_applicable');
    const { page, context } = await f.visit(site, '');
    // The positive signal: the CMP has answered for this visitor (tcloaded, GDPR not applying).
    await page.waitForFunction(
      "(() => { let done = false; __tcfapi('getTCData', 2, (d) => { done = d.eventStatus === 'tcloaded'; }); return done; })()",
    );
    expect((await tcfapi(page, 'getTCData')).value).toMatchObject({ gdprApplies: false });
    expect(await page.locator(LAYERS).count()).toBe(0);
    await context.close();
  });
});
