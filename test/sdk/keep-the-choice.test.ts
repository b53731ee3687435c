import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionCookieName, readDecisionCookie } from '../../src/shared/decision-cookie.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER } from './fixture.ts';
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
 * The choice that lasts and travels, in Chromium through a real nginx (docs/guides/keep-the-choice.md):
 * the first-party path's cookie is the service's (Set-Cookie), never the page's; cookieDomain makes
 * one decision hold on `www.` and `shop.`; a sibling domain gets the choice by a handoff token in the
 * link's fragment, once; and a page calling the service at its own address gets no cookie from it.
 */
const skipReason = proxiedSkipReason;

let t: TestApp;
let tenant: Tenant;
let site: ProxiedSite;

beforeAll(async () => {
  if (skipReason) return;
  ({ t, tenant, site } = await startKeepTheChoiceRun());
}, 60_000);
afterAll(() => closeKeepTheChoiceRun({ t, site }));

/** Opens `path` on `host` and waits for the banner, or for a decision applied without one. */
async function open(page: Page, host: string, path: string) {
  await page.goto(`${site.origin(host)}${path}`);
  await page.waitForFunction(`document.querySelector('${BANNER}') || (${DECIDED})`, undefined, {
    timeout: 15_000,
  });
}

/** Clicks "Accept all" and waits for the service's 201, whose Set-Cookie headers it gives. */
async function acceptAll(page: Page): Promise<string[]> {
  const answered = page.waitForResponse(
    (res) => res.url().endsWith('/preferences') && res.request().method() === 'POST',
  );
  await page.locator(action('accept-all')).click();
  const res = await answered;
  expect(res.status()).toBe(201);
  return (await res.headersArray()).filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value);
}

const cookieWrites = (page: Page, siteKey: string) =>
  page.evaluate(
    (name) =>
      (globalThis as unknown as { cookieWrites: string[] }).cookieWrites.filter((w) =>
        w.startsWith(`${name}=`),
      ),
    decisionCookieName(siteKey),
  );

describe.skipIf(skipWith(skipReason))('keep the choice, in Chromium through nginx', () => {
  it('the first-party path: the service sets the cookie with the consent’s lifetime, the page writes none; www. and shop. share it', async () => {
    const channel = await createChannel(
      t,
      tenant.testKey,
      [site.origin(HOSTS.www), site.origin(HOSTS.shop)],
      { firstPartyPath: '/consent', cookieDomain: 'example.test' },
    );
    site.setPage('/path', sitePage(firstPartySdk(channel.siteKey), channel.siteKey));
    const context = await site.visitor();
    const page = await context.newPage();
    await open(page, HOSTS.www, '/path');
    expect(await page.locator(BANNER).isVisible()).toBe(true);
    const setCookie = await acceptAll(page);

    expect(setCookie).toHaveLength(1);
    const [pair, ...attributes] = setCookie[0].split('; ');
    const stored = readDecisionCookie(pair, channel.siteKey);
    expect(stored?.d).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'granted' });
    expect(attributes).toEqual([`Max-Age=${180 * 86_400}`, 'Path=/', 'SameSite=Lax', 'Domain=example.test']);
    // What WebKit would delete after 7 days: not one decision cookie written by the page's script.
    expect(await cookieWrites(page, channel.siteKey)).toEqual([]);
    const [cookie] = (await context.cookies()).filter((c) => c.name === decisionCookieName(channel.siteKey));
    expect(cookie).toMatchObject({ domain: '.example.test', path: '/', sameSite: 'Lax', httpOnly: false });
    expect(cookie.expires - Date.now() / 1000).toBeGreaterThan(179 * 86_400);

    // shop. of the same registrable domain: the same decision, no banner, nothing recorded again.
    const shop = await context.newPage();
    await open(shop, HOSTS.shop, '/path');
    expect(await shop.evaluate('window.ConsentService.getDecisions()')).toEqual(stored?.d);
    expect(await shop.locator(BANNER).count()).toBe(0);
    expect(await shop.evaluate('window.ran')).toEqual(['analytics']);
    const events = await evidenceOf(t, tenant.testKey, channel.id, stored?.s as string);
    expect(events.map((e) => e.source)).toEqual(['banner']);
  });

  it('the first-party path while the decision cannot be delivered: the page keeps it meanwhile, then the service’s cookie replaces it', async () => {
    const channel = await createChannel(t, tenant.testKey, [site.origin(HOSTS.www)], {
      firstPartyPath: '/consent',
    });
    site.setPage('/offline', sitePage(firstPartySdk(channel.siteKey), channel.siteKey));
    const context = await site.visitor();
    const page = await context.newPage();
    let refused = 0;
    await page.route('**/preferences', (route) => (refused++ === 0 ? route.abort() : route.continue()));
    await open(page, HOSTS.www, '/offline');
    const delivered = page.waitForResponse(
      (res) => res.url().endsWith('/preferences') && res.status() === 201,
    );
    await page.locator(action('reject-all')).click();
    const setCookie = (await (await delivered).headersArray()).filter(
      (h) => h.name.toLowerCase() === 'set-cookie',
    );
    expect(refused).toBe(2);
    // One write by the page, when the first attempt failed; then the service's answer set it again.
    const writes = await cookieWrites(page, channel.siteKey);
    expect(writes).toHaveLength(1);
    expect(setCookie).toHaveLength(1);
    // The same visitor and decision; `t` is each writer's time of it (the service's is when it recorded it).
    const served = readDecisionCookie(setCookie[0].value.split('; ')[0], channel.siteKey);
    const kept = readDecisionCookie(writes[0].split('; ')[0], channel.siteKey);
    expect({ ...served, t: 0 }).toEqual({ ...kept, t: 0 });
    expect(served?.d).toMatchObject({ analytics: 'denied', marketing: 'denied' });
  });

  it('straight to the service (no first-party path): no Set-Cookie from it, the page keeps the decision itself', async () => {
    const channel = await createChannel(t, tenant.testKey, [site.origin(HOSTS.www)], {});
    site.setPage(
      '/direct',
      sitePage(`${t.baseUrl}/v1/public/sites/${channel.siteKey}/sdk.js`, channel.siteKey),
    );
    const page = await (await site.visitor()).newPage();
    await open(page, HOSTS.www, '/direct');
    expect(await acceptAll(page)).toEqual([]);
    const writes = await cookieWrites(page, channel.siteKey);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/; Path=\/; Max-Age=15552000; SameSite=Lax$/);
  });

  it('a sibling domain: the first layer names it, a followed link hands the choice over once, with no banner there', async () => {
    const channel = await createChannel(
      t,
      tenant.testKey,
      [site.origin(HOSTS.www), site.origin(HOSTS.sibling)],
      { firstPartyPath: '/consent', crossDomain: true },
    );
    const target = `${site.origin(HOSTS.sibling)}/sibling#reviews`;
    site.setPage(
      '/sibling',
      sitePage(
        firstPartySdk(channel.siteKey),
        channel.siteKey,
        `<a id="other" href="${target}">Our German shop</a><a id="same" href="/sibling?again">Again</a>`,
      ),
    );
    const context = await site.visitor();
    const page = await context.newPage();
    await open(page, HOSTS.www, '/sibling');
    await expect
      .poll(() => page.locator('[data-consent-siblings]').textContent())
      .toBe(`Your choice also applies on: ${HOSTS.sibling}`);
    await acceptAll(page);
    const subjectId = await page.evaluate('window.ConsentService.getSubjectId()');

    // handoff.js is loaded once the page is idle; the link then asks for a token as it is followed.
    const created = page.waitForResponse((res) => res.url().endsWith('/handoffs'));
    const redeem = page.waitForRequest((req) => req.url().endsWith('/handoffs/redeem'));
    await page.waitForFunction('window.__consentServiceHandoff');
    await page.locator('#other').click();
    expect((await created).status()).toBe(201);
    const { token } = (await redeem).postDataJSON();
    await page.waitForURL(`${site.origin(HOSTS.sibling)}/sibling*`);
    await page.waitForFunction(DECIDED);
    // The token is gone from the address bar; the link's own fragment stays.
    expect(page.url()).toBe(target);
    expect(await page.locator(BANNER).count()).toBe(0);
    expect(await page.evaluate('window.ConsentService.getDecisions()')).toMatchObject({
      analytics: 'granted',
    });
    // On the sibling domain too, the service set the cookie (through its first-party path).
    expect(await cookieWrites(page, channel.siteKey)).toEqual([]);
    // Recorded on the sibling domain for the same subject as the decision it hands over.
    const events = await evidenceOf(t, tenant.testKey, channel.id, subjectId as string);
    expect(events.map((e) => e.source)).toEqual(['handoff', 'banner']);
    expect(events[0]).toMatchObject({
      origin: site.origin(HOSTS.sibling),
      handoff: { fromOrigin: site.origin(HOSTS.www), eventId: events[1].id },
    });

    // The same token again, for another visitor: spent, so that visitor is asked.
    const other = await (await site.visitor()).newPage();
    await other.goto(`${site.origin(HOSTS.sibling)}/sibling#cs_handoff=${token}`);
    await other.locator(BANNER).waitFor();
    expect(other.url()).toBe(`${site.origin(HOSTS.sibling)}/sibling`);
    expect(await other.evaluate('window.ConsentService.getDecisions()')).toBeNull();
  });

  it('a forged token: one 404 from the service, and the visitor is asked as on any first visit', async () => {
    const channel = await createChannel(
      t,
      tenant.testKey,
      [site.origin(HOSTS.www), site.origin(HOSTS.sibling)],
      { crossDomain: true },
    );
    site.setPage('/forged', sitePage(firstPartySdk(channel.siteKey), channel.siteKey));
    const page = await (await site.visitor()).newPage();
    const redeemed = page.waitForResponse((res) => res.url().endsWith('/handoffs/redeem'));
    await page.goto(`${site.origin(HOSTS.sibling)}/forged#cs_handoff=${'A'.repeat(43)}`);
    expect((await redeemed).status()).toBe(404);
    await page.locator(BANNER).waitFor();
    expect(page.url()).toBe(`${site.origin(HOSTS.sibling)}/forged`);
  });
});
