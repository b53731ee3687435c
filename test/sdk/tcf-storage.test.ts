import { beforeAll, describe, expect, it } from 'vitest';
import { buildStorageDisclosure, buildVendorList, withDisclosuresAt } from '../helpers/gvl.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList } from '../helpers/tcf.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { browserSkipReason, type Site } from './harness.ts';
import { decodeTc, LAYERS, tcfFixture } from './tcf-helpers.ts';

/**
 * In the second layer, through the real SDK and the service's slice: each
 * vendor's cookies (duration in the layers' language, session cookies, refresh) and its storage
 * disclosure item by item, fetched by the service; the vendor list's standard texts (TCF v2.4) with
 * the features; and the legitimate-interest rule of v2.4 for a vendor with special purposes only.
 */
describe.skipIf(skipWith(browserSkipReason))('TCF storage disclosure and standard texts', () => {
  const f = tcfFixture();
  let site: Site;
  const STANDARD = 'Standard text: partners may match your data with data from other sources.';

  beforeAll(async () => {
    const list = withDisclosuresAt(
      buildVendorList({
        version: 101,
        vendors: [
          {
            id: 2,
            name: 'Captify',
            purposes: [1, 2],
            legIntPurposes: [7],
            specialPurposes: [1],
            features: [1],
          },
          { id: 8, name: 'Emerse', purposes: [1, 3], features: [1, 2] },
          { id: 21, name: 'The Trade Desk', purposes: [1, 4], legIntPurposes: [7], features: [2] },
          { id: 32, name: 'Xandr', purposes: [1] },
          // Special purposes only: disclosed, no consent, and (TCF v2.4) no legitimate interest bit.
          { id: 1, name: 'Fraud Shield', purposes: [], specialPurposes: [1, 2] },
        ],
      }),
      f.gvl.url,
    );
    const vendor = (id: number) => list.vendors[String(id)] as Record<string, unknown>;
    Object.assign(vendor(32), { cookieMaxAgeSeconds: 86_400, dataRetention: { stdRetention: 1 } });
    Object.assign(vendor(8), { cookieMaxAgeSeconds: 0 });
    Object.assign(vendor(21), { cookieRefresh: true });
    (list as Record<string, unknown>).standardTexts = { features: { '1': STANDARD } };
    f.gvl.publish(list);
    f.gvl.disclose(2, { disclosures: 'not a list' });
    site = await f.tcfSite({
      cmpId: 341,
      vendorIds: [1, 2, 8, 21, 32],
      publisherCountryCode: 'DE',
    });
    const res = await f.t.http.post(`/v1/channels/${site.channelId}/purposes`, {
      key: f.key,
      body: {
        key: 'social',
        name: 'Social media',
        translations: { fr: { name: 'Réseaux', description: null } },
      },
    });
    expect(res.status, res.text).toBe(201);
    // The list, the French translation and the vendors' disclosures.
    await refreshVendorList(f.t);
  });

  it('shows each vendor’s cookies and storage in French, per vendor, with standard texts; axe finds nothing', async () => {
    const visit = await f.visit(site, 'FR', { locale: 'fr-FR' });
    const { page } = visit;
    await page.locator(LAYERS).waitFor();
    await page.click(`${LAYERS} [data-consent-action="customize"]`);
    await page.evaluate(`document.querySelectorAll('${LAYERS} details').forEach((d) => { d.open = true; })`);
    // Intl separates a number from its unit by a no-break space in French: compared as a space.
    const plain = (text: string | null) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');
    const vendor = async (id: number) =>
      plain(await page.locator(`${LAYERS} [data-tcf-vendor="${id}"]`).textContent());

    // A day is "1 jour", never "1 jours" (cookies and retention alike).
    const xandr = await vendor(32);
    expect(xandr).toContain('Stocke des cookies jusqu’à 1 jour.');
    expect(xandr).toContain('Durée de conservation: 1 jour');
    expect(xandr).not.toContain('jours.');
    // cookieMaxAgeSeconds 0: session cookies, not "0 days".
    expect(await vendor(8)).toContain('Utilise des cookies de session');
    // cookieRefresh, and the disclosure item by item (the service fetched it from the vendor's URL).
    const ttd = await vendor(21);
    expect(ttd).toContain('Ses cookies peuvent être renouvelés');
    const items = await page
      .locator(`${LAYERS} [data-tcf-vendor="21"] [data-tcf-storage-item]`)
      .evaluateAll((li) => li.map((e) => e.textContent));
    const texts = items.map(plain);
    const disclosed = buildStorageDisclosure(21).disclosures;
    expect(texts).toHaveLength(disclosed.length);
    expect(texts[0]).toContain('uid_21 (cookie, 365 jours, renouvelé) · *.vendor21.example');
    expect(texts[1]).toContain('sess_21 (cookie, session)');
    expect(texts[2]).toContain('ls_21 (stockage web)');
    expect(texts[0]).toContain('[fr] Store and/or access information on a device');
    // Vendor 2's file failed the service's check: said so, never guessed.
    expect(await vendor(2)).toContain('Le détail de son stockage n’a pas pu être obtenu.');

    // The standard text of feature 1 (policy 5.0.b), with the feature.
    const feature = (await page.locator(`${LAYERS} [data-tcf-feature-item="1"]`).textContent()) ?? '';
    expect(feature).toContain(STANDARD);

    const axe = await axeViolations(page, LAYERS);
    expect(axe, `second layer:\n${describeViolations(axe)}`).toEqual([]);

    // TCF v2.4: the special-purpose-only vendor is disclosed, without a legitimate interest bit.
    await page.click(`${LAYERS} [data-consent-action="accept-all"]`);
    await expect.poll(() => visit.posts.length).toBe(1);
    const tc = decodeTc(visit.posts[0].tcString);
    expect(tc.vendorsDisclosed).toContain(1);
    expect(tc.vendorLegitimateInterests).not.toContain(1);
    expect(tc.vendorConsents).not.toContain(1);
    await visit.context.close();
  });
});
