import { SignJWT } from 'jose';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { loadAtpList } from '../helpers/atp.ts';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { browserSkipReason } from './harness.ts';
import { decodeTc, heard, LAYERS, TCF_SETTINGS, tcfapi, tcfFixture, VENDOR_IDS } from './tcf-helpers.ts';

const REOPEN = '[data-consent-reopen]';
const api = (page: Page, call: string) => page.evaluate(`window.ConsentService.${call}`);
const statuses = async (page: Page): Promise<string[]> =>
  ((await page.evaluate('window.tcfEvents')) as Array<{ status: string }>).map((e) => e.status);

/**
 * In Chromium through the real sdk.js and tcf.js: the page's API decides
 * as the layers' buttons do, a reopen control stays after a decision, and a signed-in account's
 * choice carries its TC string to another device. Every string decoded with @iabtechlabtcf/core.
 */
describe.skipIf(skipWith(browserSkipReason))(
  'TCF: the page’s API, the reopen control, signed-in visitors',
  () => {
    const f = tcfFixture();

    /** An identity token for `subject`, signed with a new identity secret of the site's channel. */
    async function accountToken(site: { channelId: string; siteKey: string }, subject: string) {
      const secretRes = await f.t.http.post(`/v1/channels/${site.channelId}/identity-secrets`, {
        key: f.key,
      });
      expect(secretRes.status, secretRes.text).toBe(201);
      const iat = Math.floor(f.t.clock.now().getTime() / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(subject)
        .setAudience(site.siteKey)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 3600)
        .sign(new TextEncoder().encode(secretRes.body.data.secret));
    }

    it('acceptAll() and rejectAll() record a TC string, close the layers and send useractioncomplete', async () => {
      const site = await f.tcfSite();
      const v = await f.visit(site, 'FR');
      await v.page.locator(LAYERS).waitFor();
      await heard(v.page, 'cmpuishown');

      await api(v.page, 'acceptAll()');
      const accepted = await heard(v.page, 'useractioncomplete');
      await expect.poll(() => v.page.locator(LAYERS).count()).toBe(0);
      const tc = decodeTc(accepted.tcString);
      expect(tc.vendorConsents).toEqual(VENDOR_IDS);
      expect(tc.vendorsDisclosed).toEqual(VENDOR_IDS);
      expect(tc.purposeConsents.length).toBeGreaterThan(0);
      expect(tc.model.cmpId).toBe(TCF_SETTINGS.cmpId);
      await expect.poll(() => v.posts.length).toBe(1);
      expect(v.posts[0]).toMatchObject({ source: 'api', tcString: accepted.tcString });
      expect(v.posts[0].decisions).toMatchObject({ analytics: 'granted', marketing: 'granted' });
      // The CMP API serves it too.
      expect((await tcfapi(v.page, 'getTCData')).value.tcString).toBe(accepted.tcString);

      await api(v.page, 'rejectAll()');
      await expect
        .poll(async () => (await statuses(v.page)).filter((s) => s === 'useractioncomplete').length)
        .toBe(2);
      const rejected = decodeTc((await heard(v.page, 'useractioncomplete')).tcString);
      expect(rejected.purposeConsents).toEqual([]);
      expect(rejected.vendorConsents).toEqual([]);
      expect(rejected.vendorLegitimateInterests).toEqual([]);
      expect(rejected.vendorsDisclosed).toEqual(VENDOR_IDS);
      await expect.poll(() => v.posts.length).toBe(2);
      expect(v.posts[1].source).toBe('api');
      expect(decodeTc(v.posts[1].tcString).vendorConsents).toEqual([]);
      // Recorded by the service with the strings (201s: the server's TC string rules hold).
      const events = await f.recorded(v.context, site, 2);
      expect(events.map((e) => e.source)).toEqual(['api', 'api']);
      await v.context.close();
    });

    it('a reopen control stays after a decision: keyboard reachable, labelled, axe-clean; it and showPreferences() open the second layer', async () => {
      const site = await f.tcfSite();
      const v = await f.visit(site, 'FR');
      await v.page.locator(LAYERS).waitFor();
      expect(await v.page.locator(REOPEN).count()).toBe(0);
      await v.page.click(`${LAYERS} [data-consent-action="reject-all"]`);
      await v.page.locator(REOPEN).waitFor();
      const control = v.page.locator(REOPEN);
      expect(await control.evaluate((el) => el.tagName)).toBe('BUTTON');
      expect(await control.textContent()).toBe('Your Privacy Choices');
      const violations = await axeViolations(v.page, REOPEN);
      expect(violations, describeViolations(violations)).toEqual([]);

      // Reached by Tab from the top of the page, opened with Enter: "Manage options", the second layer.
      await v.page.evaluate('document.activeElement && document.activeElement.blur()');
      let reached = false;
      for (let i = 0; i < 40 && !reached; i++) {
        await v.page.keyboard.press('Tab');
        reached = await control.evaluate((el) => el === el.ownerDocument.activeElement).catch(() => false);
      }
      expect(reached, 'the reopen control is in the tab order').toBe(true);
      await v.page.keyboard.press('Enter');
      await v.page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
      expect(await v.page.locator(REOPEN).count()).toBe(0);
      await v.page.click(`${LAYERS} [data-consent-action="save"]`);
      await v.page.locator(REOPEN).waitFor();
      // Keyboard focus comes back to the control, not to the top of the page.
      expect(await v.page.locator(REOPEN).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await expect.poll(() => v.posts.length).toBe(2);
      expect(v.posts[1].source).toBe('preference_center');
      expect(decodeTc(v.posts[1].tcString).model.consentScreen).toBe(2);

      // Every page of the site keeps it: a returning visitor (tcloaded) has it at once.
      await v.page.reload();
      await heard(v.page, 'tcloaded');
      await v.page.locator(REOPEN).waitFor();
      await api(v.page, 'showPreferences()');
      await v.page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
      await v.context.close();

      // "none": only the page's own links.
      const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, {
        key: f.key,
        body: { reopenControl: 'none' },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.reopenControl).toBe('none');
      const config = await f.t.http.get(`/v1/public/sites/${site.siteKey}/config?region=FR`);
      expect(config.body.data.tcf.reopenControl).toBe('none');
      const quiet = await f.visit(site, 'FR');
      await quiet.page.locator(LAYERS).waitFor();
      await quiet.page.click(`${LAYERS} [data-consent-action="accept-all"]`);
      await heard(quiet.page, 'useractioncomplete');
      await quiet.page.waitForTimeout(300);
      expect(await quiet.page.locator(REOPEN).count()).toBe(0);
      await quiet.context.close();
    });

    it('signed in: the account’s choice carries its TC string to another device, which is not asked; the layers say the choice follows the account', async () => {
      const site = await f.tcfSite();
      const token = await accountToken(site, 'account-tcf-1');
      const identify = (page: Page) =>
        page.evaluate((t) => (globalThis as any).ConsentService.identify(t), token) as Promise<boolean>;

      // The laptop signs in before any choice: the first layer says the choice follows the account.
      const laptop = await f.visit(site, 'FR');
      await laptop.page.locator(LAYERS).waitFor();
      expect(await identify(laptop.page)).toBe(true);
      await laptop.page.locator(`${LAYERS} [data-consent-signed-in]`).waitFor();
      expect(await laptop.page.locator(`${LAYERS} [data-consent-signed-in]`).textContent()).toMatch(
        /applies on every device where you are signed in/,
      );
      await laptop.page.click(`${LAYERS} [data-consent-action="reject-all"]`);
      const made = (await heard(laptop.page, 'useractioncomplete')).tcString as string;
      await expect.poll(() => laptop.posts.length).toBe(1);

      // The identify answer carries the account's TC string.
      await expect
        .poll(
          async () =>
            (
              await f.t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
                body: { token },
                headers: { origin: f.pages.origin },
              })
            ).body.data?.state?.tcString ?? null,
        )
        .toBe(made);

      // The phone: layers up (not signed in yet); signing in closes them and serves the account's string.
      const phone = await f.visit(site, 'FR');
      await phone.page.locator(LAYERS).waitFor();
      expect(await identify(phone.page)).toBe(true);
      await expect.poll(() => phone.page.locator(LAYERS).count()).toBe(0);
      const served = (await tcfapi(phone.page, 'getTCData')).value;
      expect(served.tcString).toBe(made);
      expect(decodeTc(served.tcString).vendorConsents).toEqual([]);
      expect(decodeTc(served.tcString).vendorsDisclosed).toEqual(VENDOR_IDS);
      expect(await phone.page.evaluate('window.ConsentService.getDecisions()')).toMatchObject({
        analytics: 'denied',
        marketing: 'denied',
      });
      // Nothing was asked, so nothing new was recorded from the phone.
      await phone.page.waitForTimeout(300);
      expect(phone.posts).toEqual([]);
      // The next page of the phone: the account's string, `tcloaded`, no layers.
      await phone.page.reload();
      expect((await heard(phone.page, 'tcloaded')).tcString).toBe(made);
      expect(await phone.page.locator(LAYERS).count()).toBe(0);
      await Promise.all([laptop.context.close(), phone.context.close()]);
    });

    it('signed in: a device’s own choice, newer than the account’s, is uploaded for the account with its AC string, which reaches another device', async () => {
      await loadAtpList(f.t);
      const site = await f.tcfSite({ ...TCF_SETTINGS, googleAdditionalConsent: { providerIds: [89, 2822] } });
      const token = await accountToken(site, 'account-ac-1');
      // Not signed in: the visitor accepts all, providers included.
      const visit = await f.visit(site, 'FR');
      await visit.page.locator(LAYERS).waitFor();
      await visit.page.click(`${LAYERS} [data-consent-action="accept-all"]`);
      await heard(visit.page, 'useractioncomplete');
      await expect.poll(() => visit.posts.length).toBe(1);
      expect(visit.posts[0].addtlConsent).toBe('2~89.2822~dv.');
      // Signing in: the account has no choice, so this device's is recorded for it, both strings with it.
      expect(await visit.page.evaluate((t) => (globalThis as any).ConsentService.identify(t), token)).toBe(
        true,
      );
      await expect.poll(() => visit.posts.length).toBe(2);
      expect(visit.posts[1].tcString).toBe(visit.posts[0].tcString);
      expect(visit.posts[1].addtlConsent).toBe('2~89.2822~dv.');
      // Recorded for the account (the service accepted the AC string: a refused one is a 422).
      const accountState = async () =>
        (
          await f.t.http.get(`/v1/consent-state?channelId=${site.channelId}&accountId=account-ac-1`, {
            key: f.key,
          })
        ).status;
      await expect.poll(accountState, { timeout: 10_000 }).toBe(200);
      // The identify answer carries both strings, and another device signing in serves both.
      const answer = await f.t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
        body: { token },
        headers: { origin: f.pages.origin },
      });
      expect(answer.body.data.state).toMatchObject({
        tcString: visit.posts[0].tcString,
        addtlConsent: '2~89.2822~dv.',
      });
      const phone = await f.visit(site, 'FR');
      await phone.page.locator(LAYERS).waitFor();
      expect(await phone.page.evaluate((t) => (globalThis as any).ConsentService.identify(t), token)).toBe(
        true,
      );
      await expect.poll(() => phone.page.locator(LAYERS).count()).toBe(0);
      const served = (await tcfapi(phone.page, 'getTCData')).value;
      expect(served.tcString).toBe(visit.posts[0].tcString);
      expect(served.addtlConsent).toBe('2~89.2822~dv.');
      await Promise.all([visit.context.close(), phone.context.close()]);
    });
  },
);
