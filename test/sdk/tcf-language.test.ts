import { beforeAll, describe, expect, it } from 'vitest';
import { loadAtpList } from '../helpers/atp.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList } from '../helpers/tcf.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { browserSkipReason, type Site } from './harness.ts';
import { decodeTc, LAYERS, TCF_SETTINGS, tcfFixture } from './tcf-helpers.ts';

/**
 * The layers are drawn in one language as a whole (their own sentences, the
 * banner's buttons, the vendor list's declarations, the vendors' links), and the TC string's
 * consentLanguage is that language. A language the layers or IAB lack falls back to English for
 * everything; `fr-CA` is French.
 */
describe.skipIf(skipWith(browserSkipReason))('TCF layers in the visitor’s language', () => {
  const f = tcfFixture();
  let site: Site;

  beforeAll(async () => {
    // The Trade Desk publishes its privacy policy and legitimate interest claim in two languages.
    const list = buildVendorList({ version: 101 });
    (list.vendors['21'] as { urls: unknown }).urls = [
      {
        langId: 'en',
        privacy: 'https://ttd.example/en/privacy',
        legIntClaim: 'https://ttd.example/en/legint',
      },
      {
        langId: 'fr',
        privacy: 'https://ttd.example/fr/privacy',
        legIntClaim: 'https://ttd.example/fr/legint',
      },
    ];
    f.gvl.publish(list);
    // With Google Additional Consent: its section is drawn in the layers' language too.
    await loadAtpList(f.t);
    site = await f.tcfSite({ ...TCF_SETTINGS, googleAdditionalConsent: { providerIds: [89] } });
    // The channel speaks Polish, Irish and Canadian French too (the SDK shows those to such visitors).
    const res = await f.t.http.post(`/v1/channels/${site.channelId}/purposes`, {
      key: f.key,
      body: {
        key: 'social',
        name: 'Social media',
        translations: {
          pl: { name: 'Media społecznościowe', description: null },
          ga: { name: 'Meáin shóisialta', description: null },
          'fr-CA': { name: 'Médias sociaux', description: null },
        },
      },
    });
    expect(res.status, res.text).toBe(201);
    // The mirror stores the new list and IAB's translations for the channel's languages.
    await refreshVendorList(f.t);
  });

  async function acceptAll(locale: string) {
    const visit = await f.visit(site, 'FR', { locale });
    await visit.page.locator(LAYERS).waitFor();
    const text = (await visit.page.locator(LAYERS).textContent()) ?? '';
    const lang = await visit.page.locator(LAYERS).getAttribute('lang');
    const axe = await axeViolations(visit.page, LAYERS);
    expect(axe, describeViolations(axe)).toEqual([]);
    return {
      visit,
      text,
      lang,
      async choose() {
        await visit.page.click(`${LAYERS} [data-consent-action="accept-all"]`);
        await expect.poll(() => visit.posts.length).toBe(1);
        return decodeTc(visit.posts[0].tcString).model;
      },
    };
  }

  it('Polish: the layers’ own sentences, the buttons and IAB’s declarations in Polish, consentLanguage PL', async () => {
    const shown = await acceptAll('pl-PL');
    expect(shown.lang).toBe('pl');
    expect(shown.text).toContain('My i nasi partnerzy przechowujemy informacje');
    expect(shown.text).toContain('[pl] ');
    expect(shown.text).toContain('Zaakceptuj wszystko');
    expect(shown.text).toContain('Odrzuć wszystko');
    expect(shown.text).not.toContain('We and our partners');
    expect(shown.text).not.toContain('Accept all');
    // The Additional Consent section, in the second layer, in Polish too.
    await shown.visit.page.click(`${LAYERS} [data-consent-action="customize"]`);
    const second = (await shown.visit.page.locator(LAYERS).textContent()) ?? '';
    expect(second).toContain('Inni dostawcy technologii reklamowych (Google Additional Consent)');
    expect(second).toContain('Tych dostawców nie ma na liście dostawców IAB Europe.');
    expect(second).not.toContain('Other ad technology providers');
    await shown.visit.page.click(`${LAYERS} [data-consent-action="accept-all"]`);
    await expect.poll(() => shown.visit.posts.length).toBe(1);
    expect(decodeTc(shown.visit.posts[0].tcString).model.consentLanguage).toBe('PL');
    await shown.visit.context.close();
  });

  it('a language the layers have no sentences for (Irish) is English as a whole, never mixed, consentLanguage EN', async () => {
    const shown = await acceptAll('ga-IE');
    expect(shown.lang).toBe('en');
    expect(shown.text).toContain('We and our partners store and access information');
    expect(shown.text).not.toContain('[ga] ');
    await shown.visit.page.click(`${LAYERS} [data-consent-action="customize"]`);
    const second = (await shown.visit.page.locator(LAYERS).textContent()) ?? '';
    expect(second).toContain('Other ad technology providers (Google Additional Consent)');
    await shown.visit.page.click(`${LAYERS} [data-consent-action="accept-all"]`);
    await expect.poll(() => shown.visit.posts.length).toBe(1);
    expect(decodeTc(shown.visit.posts[0].tcString).model.consentLanguage).toBe('EN');
    await shown.visit.context.close();
  });

  it('fr-CA is French, and the vendor’s links are its French ones (privacy policy and legitimate interest claim)', async () => {
    const shown = await acceptAll('fr-CA');
    expect(shown.lang).toBe('fr');
    expect(shown.text).toContain('Nos partenaires et nous stockons');
    expect(shown.text).toContain('[fr] ');
    await shown.visit.page.click(`${LAYERS} [data-consent-action="customize"]`);
    const links = await shown.visit.page
      .locator(`${LAYERS} [data-tcf-vendor="21"] a`)
      .evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
    expect(links).toEqual(['https://ttd.example/fr/privacy', 'https://ttd.example/fr/legint']);
    const axe = await axeViolations(shown.visit.page, LAYERS);
    expect(axe, describeViolations(axe)).toEqual([]);
    expect((await shown.choose()).consentLanguage).toBe('FR');
    await shown.visit.context.close();
  });
});
