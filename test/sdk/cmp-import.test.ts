import { TCString } from '@iabtechlabtcf/core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { skipWith } from '../helpers/skip.ts';
import { cookiebot, oneTrust, tcString } from './cmp-cookie-builders.ts';
import { BANNER } from './fixture.ts';
import {
  closeKeepTheChoiceRun,
  createChannel,
  DECIDED,
  evidenceOf,
  firstPartySdk,
  HOSTS,
  type ProxiedSite,
  proxiedSkipReason,
  sitePage,
  startKeepTheChoiceRun,
} from './keep-the-choice-helpers.ts';

/**
 * A site leaving OneTrust, Cookiebot or another TCF CMP (`imports`, docs/guides/keep-the-choice.md),
 * in Chromium: a visitor with a valid cookie of the old CMP is not asked, and the evidence says
 * what it was imported from; an unmapped purpose, an old or a hostile cookie asks as before.
 */
const skipReason = proxiedSkipReason;

let t: TestApp;
let tenant: Tenant;
let site: ProxiedSite;
let channel: { id: string; siteKey: string };
const TEN_DAYS_AGO = new Date(Date.now() - 10 * 86_400_000);
/** An API time, at whole seconds (TC strings keep days: IAB's library rounds LastUpdated to one). */
const wholeSeconds = (at: Date) =>
  new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

beforeAll(async () => {
  if (skipReason) return;
  ({ t, tenant, site } = await startKeepTheChoiceRun());
  channel = await createChannel(t, tenant.testKey, [site.origin(HOSTS.www)], {
    firstPartyPath: '/consent',
    imports: [
      { from: 'onetrust', purposes: { C0002: 'analytics', C0004: 'marketing' } },
      { from: 'cookiebot', purposes: { statistics: 'analytics', marketing: 'marketing' } },
      { from: 'tcf', purposes: { '1': 'analytics', '4': 'marketing' } },
    ],
  });
  site.setPage('/import', sitePage(firstPartySdk(channel.siteKey), channel.siteKey));
}, 60_000);
afterAll(() => closeKeepTheChoiceRun({ t, site }));

/** A visitor whose browser has `name=value` on the site's host. */
async function visitorWith(name: string, value: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await site.visitor();
  await context.addCookies([{ name, value, domain: HOSTS.www, path: '/' }]);
  const page = await context.newPage();
  await page.goto(`${site.origin(HOSTS.www)}/import`);
  await page.waitForFunction(`document.querySelector('${BANNER}') || (${DECIDED})`, undefined, {
    timeout: 15_000,
  });
  return { context, page };
}

describe.skipIf(skipWith(skipReason))('imports from the previous CMP, in Chromium', () => {
  it.each([
    ['onetrust', 'OptanonConsent', () => oneTrust('C0001:1,C0002:1,C0004:0', TEN_DAYS_AGO)],
    [
      'cookiebot',
      'CookieConsent',
      () =>
        cookiebot({
          stamp: 'q9Fz1Xy3Lw==',
          necessary: true,
          preferences: false,
          statistics: true,
          marketing: false,
          method: 'explicit',
          ver: 1,
          utc: TEN_DAYS_AGO.getTime(),
          region: 'de',
        }),
    ],
    ['tcf', 'euconsent-v2', () => tcString([1, 2], TEN_DAYS_AGO)],
  ])('%s (%s): no banner, the mapped choice applied and recorded as an import', async (cmp, name, value) => {
    const raw = value();
    const { page } = await visitorWith(name, raw);
    expect(await page.locator(BANNER).count()).toBe(0);
    expect(await page.evaluate('window.ConsentService.getDecisions()')).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'denied',
    });
    expect(await page.evaluate('window.ran')).toEqual(['analytics']);
    const subjectId = await page.evaluate('window.ConsentService.getSubjectId()');
    await expect
      .poll(async () => (await evidenceOf(t, tenant.testKey, channel.id, subjectId as string)).length)
      .toBe(1);
    const [event] = await evidenceOf(t, tenant.testKey, channel.id, subjectId as string);
    expect(event).toMatchObject({
      source: 'import',
      importedFrom: {
        cmp,
        value: raw,
        recordedAt: wholeSeconds(cmp === 'tcf' ? TCString.decode(raw).lastUpdated : TEN_DAYS_AGO),
      },
    });
    const listed = await t.http.get(`/v1/evidence?channelId=${channel.id}&source=import`, {
      key: tenant.testKey,
    });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(event.id);
  });

  it.each([
    [
      'a mapped category missing (marketing unmapped)',
      'OptanonConsent',
      oneTrust('C0001:1,C0002:1', TEN_DAYS_AGO),
    ],
    [
      'a choice older than consentMaxAgeDays',
      'OptanonConsent',
      oneTrust('C0002:1,C0004:1', new Date(Date.now() - 200 * 86_400_000)),
    ],
    [
      'an implied Cookiebot consent',
      'CookieConsent',
      cookiebot({
        stamp: '-1',
        statistics: true,
        marketing: true,
        preferences: true,
        utc: Date.now(),
        method: 'implied',
      }),
    ],
    [
      'a hostile OneTrust cookie',
      'OptanonConsent',
      `groups=${'C0002:1,'.repeat(400)}&datestamp=${'%'.repeat(800)}`,
    ],
    ['a huge TC string', 'euconsent-v2', 'C'.repeat(3900)],
  ])('%s: the visitor is asked, and nothing is recorded', async (_, name, value) => {
    const { page } = await visitorWith(name, value);
    await page.locator(BANNER).waitFor();
    expect(await page.evaluate('window.ConsentService.getDecisions()')).toBeNull();
  });
});
