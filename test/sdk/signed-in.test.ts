import { SignJWT } from 'jose';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite, type Site } from './harness.ts';

/**
 * In Chromium through the real SDK (docs/guides/signed-in-visitors.md): two browser
 * contexts are two devices of one account; the newest explicit choice wins at sign-in; the
 * cooldown after a refusal outlasts a material change; "Reject all" weighs what "Accept all" does.
 */
describe.skipIf(skipWith(browserSkipReason))('browser SDK in Chromium: signed-in visitors', () => {
  const f = sdkFixture();

  async function identitySecret(site: Site): Promise<string> {
    const res = await f.t.http.post(`/v1/channels/${site.channelId}/identity-secrets`, { key: f.key });
    expect(res.status, res.text).toBe(201);
    return res.body.data.secret;
  }

  /**
   * What the site's backend does at sign-in: an HS256 token for the account, for this site, valid
   * for an hour from now on the service's clock (which the tests move).
   */
  const tokenFor = (site: Site, secret: string, accountId: string) => {
    const iat = Math.floor(f.t.clock.now().getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(accountId)
      .setAudience(site.siteKey)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(new TextEncoder().encode(secret));
  };
  const identify = (page: Page, token: string): Promise<boolean> =>
    page.evaluate((t) => (globalThis as any).ConsentService.identify(t), token);

  /** A device: its own browser context on the shop page, signed in (`data-identity-token`) with `token`. */
  const device = (site: Site, token: string | null) => f.visit(site, { identityToken: token ?? undefined });

  const accountState = async (site: Site, accountId: string) => {
    const query = new URLSearchParams({ channelId: site.channelId, accountId });
    return f.t.http.get(`/v1/consent-state?${query}`, { key: f.key });
  };
  const settledWith = async (page: Page) => {
    await page.waitForFunction('window.changes.length > 0');
    return f.decisions(page);
  };
  const close = (...contexts: BrowserContext[]) => Promise.all(contexts.map((c) => c.close()));

  it('a choice on one device applies on the other without a banner; the first layer says so while signed in', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const secret = await identitySecret(site);
    const token = await tokenFor(site, secret, 'account-1');

    const laptop = await device(site, token);
    await laptop.page.locator(BANNER).waitFor();
    expect(await laptop.page.locator(`${BANNER} [data-consent-signed-in]`).textContent()).toMatch(
      /applies on every device where you are signed in/,
    );
    await laptop.page.click(action('accept-all'));
    await expect.poll(async () => (await accountState(site, 'account-1')).status).toBe(200);
    const state = (await accountState(site, 'account-1')).body.data;
    expect(state.purposes.analytics.decision).toBe('granted');
    // Recorded for the account, not for this device's own id.
    const deviceId = await f.subjectIdOf(laptop.context, site);
    const query = new URLSearchParams({ channelId: site.channelId, subjectId: deviceId });
    expect((await f.t.http.get(`/v1/consent-state?${query}`, { key: f.key })).status).toBe(404);

    const phone = await device(site, token);
    expect(await settledWith(phone.page)).toMatchObject({ analytics: 'granted', marketing: 'granted' });
    expect(await phone.page.locator(BANNER).count()).toBe(0);
    expect(await f.ran(phone.page)).toContain('analytics-inline');

    // Signed out: the device forgets the account's choice and asks again, without the note.
    await phone.page.evaluate('window.ConsentService.forget()');
    await phone.page.locator(BANNER).waitFor();
    expect(await phone.page.locator(`${BANNER} [data-consent-signed-in]`).count()).toBe(0);
    await close(laptop.context, phone.context);
  });

  it("the newest explicit choice wins at sign-in: a device's newer choice is recorded for the account, an older one gives way", async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const secret = await identitySecret(site);
    const token = await tokenFor(site, secret, 'account-2');

    // The account decided first (server time now).
    const first = await device(site, token);
    await first.page.click(action('accept-all'));
    await expect.poll(async () => (await accountState(site, 'account-2')).status).toBe(200);

    // A device not signed in refuses later (browser time is after the service's clock), then signs in.
    const later = await device(site, null);
    await later.page.click(action('reject-all'));
    await f.recorded(later.context, site, 1);
    expect(await identify(later.page, token)).toBe(true);
    await expect
      .poll(async () => (await accountState(site, 'account-2')).body.data?.purposes.analytics.decision)
      .toBe('denied');
    expect(await f.decisions(later.page)).toMatchObject({ analytics: 'denied' });

    // The account decides again two days on (service time): a device whose own choice is older takes it.
    f.t.clock.advance(24 * 60 * 60 * 1000);
    const older = await device(site, null);
    await older.page.click(action('reject-all'));
    await f.recorded(older.context, site, 1);
    f.t.clock.advance(24 * 60 * 60 * 1000);
    const fresh = await tokenFor(site, secret, 'account-2'); // the first one has expired by now
    expect(await identify(first.page, fresh)).toBe(true);
    await first.page.evaluate('window.ConsentService.showPreferences()');
    await first.page.click(action('accept-all'));
    await expect
      .poll(async () => (await accountState(site, 'account-2')).body.data?.purposes.analytics.decision)
      .toBe('granted');
    // The service's clock is now two days ahead of the browser's: the account's choice is the newer.
    expect(await identify(older.page, fresh)).toBe(true);
    expect(await f.decisions(older.page)).toMatchObject({ analytics: 'granted' });
    expect(await older.page.locator(BANNER).count()).toBe(0);

    // A token the service refuses changes nothing and says so.
    expect(await older.page.evaluate(() => (globalThis as any).ConsentService.identify('not.a.token'))).toBe(
      false,
    );
    await close(first.context, later.context, older.context);
  });

  it('rejectCooldownDays: after a refusal no banner, even after a material change; the preferences still open', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const channel = `/v1/channels/${site.channelId}`;
    const patch = await f.t.http.patch(channel, { key: f.key, body: { rejectCooldownDays: 180 } });
    expect(patch.status, patch.text).toBe(200);
    const { context, page } = await f.visit(site);
    await page.click(action('reject-all'));
    await f.recorded(context, site, 1);

    // A material change (a new purpose) would ask again; the cooldown keeps the banner away.
    const purpose = await f.t.http.post(`${channel}/purposes`, {
      key: f.key,
      body: { key: 'video', name: 'Video' },
    });
    expect(purpose.status, purpose.text).toBe(201);
    // The same visitor (cookies kept) after sdk.js's minute in the HTTP cache: a context of its own.
    const storageState = await context.storageState();
    await context.close();
    const again = await f.visit(site, { storageState });
    expect(await settledWith(again.page)).toMatchObject({
      analytics: 'denied',
      marketing: 'denied',
      video: 'denied',
    });
    expect(await again.page.locator(BANNER).count()).toBe(0);
    await again.page.evaluate('window.ConsentService.showPreferences()');
    await again.page.locator(`${BANNER}[data-consent-view="customize"]`).waitFor();
    await again.context.close();

    // Without the cooldown the same visitor is asked again.
    const off = await f.t.http.patch(channel, { key: f.key, body: { rejectCooldownDays: 0 } });
    expect(off.status, off.text).toBe(200);
    const asked = await f.visit(site, { storageState });
    await asked.page.locator(`${BANNER}[data-consent-view="banner"]`).waitFor();
    await asked.context.close();
  });

  it('"Reject all" sits beside "Accept all" with the same size and weight, at desktop and phone widths', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    for (const width of [1280, 375]) {
      const { context, page } = await f.visit(site, { width });
      await page.locator(BANNER).waitFor();
      const measure = (name: string) =>
        page.locator(`${BANNER} ${action(name)}`).evaluate((el) => {
          const box = el.getBoundingClientRect();
          const style = (el.ownerDocument.defaultView as any).getComputedStyle(el);
          return {
            width: box.width,
            height: box.height,
            top: box.top,
            weight: style.fontWeight,
            size: style.fontSize,
          };
        });
      const [reject, accept] = [await measure('reject-all'), await measure('accept-all')];
      expect(reject.width).toBeCloseTo(accept.width, 0);
      expect(reject.height).toBeCloseTo(accept.height, 0);
      expect([reject.weight, reject.size]).toEqual([accept.weight, accept.size]);
      // Beside it: on one row on a desktop, stacked in the same column on a phone.
      if (width === 1280) expect(reject.top).toBe(accept.top);
      await context.close();
    }
  });
});
