import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import {
  browserSkipReason,
  eventually,
  openBrowser,
  openView,
  SHOTS,
  signedInMember,
  textOf,
} from './console-browser.ts';

/**
 * The channel page's "Identity secrets" and "After a refusal" sections (docs/guides/signed-in-visitors.md),
 * through the real console in Chromium: a secret created and shown once (and it is the one the service
 * verifies tokens with), gone after a reload, the two-active limit, revoke after a confirmation (a token
 * signed with it is then refused), and rejectCooldownDays checked at its field and saved; axe-core over
 * both sections in each state.
 */
describe.skipIf(skipWith(browserSkipReason))(
  'console identity secrets and refusal cooldown in Chromium',
  () => {
    let t: TestApp;
    let browser: Browser;
    let tenant: Tenant;
    let site: ReadySite;
    let page: Page;
    const counts: Record<string, number> = {};

    beforeAll(async () => {
      t = await startTestApp({ env: { ...SITES_TEST_ENV, SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' } });
      browser = await openBrowser();
      tenant = await t.tenant();
      site = await createReadySite(t, tenant.testKey, { name: 'Bakery' });
      page = (await signedInMember(t, browser, tenant.organizationId, 'developer')).page;
    });
    afterAll(async () => {
      console.log(
        `console identity sections axe violations (wcag2a, wcag2aa, wcag21aa): ${JSON.stringify(counts)}`,
      );
      await browser?.close();
      await t?.close();
    });

    const section = () => page.locator('section.identity-secrets');
    const cooldown = () => page.locator('section.reject-cooldown');
    const createButton = () => page.getByRole('button', { name: 'Create identity secret' });
    const secretsNow = async (): Promise<{ id: string }[]> => {
      const res = await t.http.get(`/v1/channels/${site.channelId}/identity-secrets`, {
        key: tenant.testKey,
      });
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
    /** What the site's backend does with the secret: sign a token; then the SDK's call with it. */
    const identifyWith = async (secret: string) => {
      t.clock.set(new Date());
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('user-7')
        .setAudience(site.siteKey)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(secret));
      const res = await t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
        body: { token },
        headers: { origin: SITE_ORIGIN },
      });
      return res.status;
    };

    async function openChannel() {
      await openView(page, 'Channels');
      await page.getByRole('button', { name: 'Open Bakery' }).click();
      await page.getByRole('heading', { name: 'Identity secrets', exact: true }).waitFor();
    }

    async function expectAccessible(name: string) {
      const violations = [
        ...(await axeViolations(page, '.identity-secrets')),
        ...(await axeViolations(page, '.reject-cooldown')),
      ];
      counts[name] = violations.length;
      await page.screenshot({ timeout: 20_000, path: `${SHOTS}/identity-${name.replace(/\W+/g, '-')}.png` });
      expect(violations, `${name}:\n${describeViolations(violations)}`).toEqual([]);
    }

    /** A sign-in runs scrypt and axe takes seconds per run on 2 shared cores. */
    const TIMEOUT = 120_000;

    it(
      'creates secrets shown once, keeps at most two, revokes one after a confirmation',
      async () => {
        await openChannel();
        expect(await textOf(section())).toContain('No identity secrets yet.');
        expect(await textOf(section())).toContain('At most 2 secrets are active at once');
        expect(await textOf(section())).toContain('0 of 2 secrets active.');
        await expectAccessible('none yet');

        // Created: shown once, focused, with its warning and a copy button; the service verifies with it.
        await createButton().click();
        const shown = page.getByLabel('Identity secret', { exact: true });
        await eventually(() => shown.inputValue().catch(() => '')).not.toBe('');
        const secret = await shown.inputValue();
        expect(await page.evaluate('document.activeElement.readOnly')).toBe(true);
        expect(await textOf(section())).toContain('you will not see this secret again');
        await section().getByRole('button', { name: 'Copy' }).click();
        await eventually(() => textOf(section().getByRole('status'))).toBe('Copied.');
        const [first] = await secretsNow();
        expect(await textOf(section().getByRole('region', { name: 'Identity secrets' }))).toContain(first.id);
        expect(await identifyWith(secret)).toBe(200);
        await expectAccessible('secret shown');

        // Gone for good after a reload; still listed.
        await page.reload();
        await page.getByRole('heading', { name: 'Identity secrets', exact: true }).waitFor();
        expect(await page.getByLabel('Identity secret', { exact: true }).count()).toBe(0);
        expect(await textOf(section())).toContain(first.id);

        // A second one reaches the limit: creating is off, and the section says why.
        await createButton().click();
        await eventually(() => textOf(section())).toContain('2 secrets are active, the most a channel has');
        expect(await createButton().isDisabled()).toBe(true);
        expect(await secretsNow()).toHaveLength(2);
        await page.getByRole('button', { name: 'Done' }).click();
        await expectAccessible('two active');

        // Revoke asks first, in the row: Cancel puts it back; confirmed, the secret is gone and refused.
        const revoke = () => page.getByRole('button', { name: `Revoke ${first.id}`, exact: true });
        await revoke().click();
        const confirm = page.getByRole('button', { name: `Yes, revoke ${first.id}` });
        await eventually(() => page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(
          `Yes, revoke ${first.id}`,
        );
        expect(await confirm.getAttribute('aria-describedby')).toBeTruthy();
        expect(await textOf(section())).toContain('Tokens signed with it are refused from now on');
        await expectAccessible('revoke asked');
        await section().getByRole('button', { name: 'Cancel' }).click();
        await eventually(() => page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(
          `Revoke ${first.id}`,
        );
        expect(await secretsNow()).toHaveLength(2);
        await revoke().click();
        await confirm.click();
        await eventually(() => textOf(section().locator('.message.ok'))).toContain(`${first.id} revoked`);
        expect((await secretsNow()).map((s) => s.id)).not.toContain(first.id);
        expect(await revoke().count()).toBe(0);
        expect(await createButton().isDisabled()).toBe(false);
        expect(await identifyWith(secret)).toBe(401);
      },
      TIMEOUT,
    );

    it(
      'rejectCooldownDays: a bad value is shown at its field and not sent; a good one is saved',
      async () => {
        const days = page.getByLabel('Days without a banner after a refusal');
        expect(await days.inputValue()).toBe('0');
        expect(await textOf(cooldown())).toContain('asked again as any other visitor');
        const save = cooldown().getByRole('button', { name: 'Save' });

        await days.fill('400');
        await save.click();
        await eventually(() => days.getAttribute('aria-invalid')).toBe('true');
        const errorId = ((await days.getAttribute('aria-describedby')) ?? '').split(' ').pop();
        expect(await textOf(page.locator(`[id="${errorId}"]`))).toBe(
          'Enter a whole number of days from 0 to 395.',
        );
        expect(await page.evaluate('document.activeElement.name')).toBe('rejectCooldownDays');
        await expectAccessible('cooldown error');
        const before = (await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey })).body
          .data;
        expect(before.rejectCooldownDays).toBe(0);

        await days.fill('183');
        await save.click();
        await eventually(() => textOf(cooldown().locator('.message.ok'))).toContain('Saved: 183 days');
        const after = (await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey })).body.data;
        expect(after.rejectCooldownDays).toBe(183);
        expect(await textOf(cooldown())).toContain(
          'sees no banner for 183 days, not even after a material change',
        );
        expect(await page.getByLabel('Days without a banner after a refusal').inputValue()).toBe('183');
        await eventually(() => page.evaluate('document.activeElement.textContent')).toBe('After a refusal');
      },
      TIMEOUT,
    );
  },
);
