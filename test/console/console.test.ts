import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES } from '../../src/platform/auth/scopes.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import {
  browserSkipReason,
  eventually,
  expectNoHorizontalOverflow,
  newPage,
  openBrowser,
  openView,
  SHOTS,
  signInAs,
  signInWithKeyboard,
  textOf,
} from './console-browser.ts';
import { memberWithPassword, PASSWORD } from './console-helpers.ts';

const VIEWS = ['Overview', 'API keys', 'Channels', 'Evidence', 'Exports', 'Webhooks', 'Audit log'];

describe.skipIf(skipWith(browserSkipReason))('the console in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let owner: { id: string; email: string };
  let analyst: { id: string; email: string };

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        ...SITES_TEST_ENV,
        SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    browser = await openBrowser();
    tenant = await t.tenant();
    owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    analyst = await memberWithPassword(t, tenant.organizationId, 'analyst');
    // Something to see in Channels, Evidence and the audit log.
    const site = await createReadySite(t, tenant.testKey, { name: 'Corner Shop' });
    await recordConsent(t, site);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const bearer = (secret: string) =>
    fetch(`${t.baseUrl}/v1/channels`, { headers: { authorization: `Bearer ${secret}` } });

  it('serves the page with a strict CSP and no framing', async () => {
    const response = await fetch(`${t.baseUrl}/console`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toMatch(
      /default-src 'self'.*frame-ancestors 'none'/,
    );
    expect(response.headers.get('content-security-policy')).not.toMatch(/unsafe-inline/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(await response.text()).not.toMatch(/<script>(?!<\/script>)|style=/);
    const script = await fetch(`${t.baseUrl}/console/app.js`);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
  });

  it('says a failed sign-in failed, without saying which field was wrong', async () => {
    const { context, page } = await newPage(browser, t.baseUrl);
    for (const [email, password] of [
      [owner.email, 'not the password'],
      ['nobody@example.com', PASSWORD],
    ]) {
      await signInWithKeyboard(page, email, password);
      await eventually(() => textOf(page.getByRole('alert'))).toBe('Email or password is incorrect.');
    }
    expect(await page.getByRole('navigation').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/sign-in-failed-1280.png` });
    await page.setViewportSize({ width: 360, height: 800 });
    await page.screenshot({ path: `${SHOTS}/sign-in-failed-360.png` });
    await expectNoHorizontalOverflow(page, 'sign-in');
    await context.close();
  });

  it('creates a key with two scopes, shows its secret once, rotates and revokes it', async () => {
    const { context, page } = await newPage(browser, t.baseUrl);
    await signInWithKeyboard(page, owner.email, PASSWORD);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await openView(page, 'API keys');
    // The owner may pick every scope of the catalogue.
    const boxes = page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox');
    expect(await boxes.count()).toBe(ROLE_SCOPES.owner.length);

    await page.getByLabel('Name').fill('CI deploy');
    await page.getByRole('checkbox', { name: 'channels:read' }).check();
    await page.getByRole('checkbox', { name: 'evidence:read' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secretField = page.getByLabel('Secret');
    await secretField.waitFor();
    expect(await secretField.getAttribute('readonly')).not.toBeNull();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^svc_test_/);
    await eventually(() => textOf(page.getByRole('region', { name: 'API keys' }))).toContain('CI deploy');
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/api-keys-secret-1280.png`, fullPage: true });

    // The secret works against the API, and is gone after a reload.
    expect((await bearer(secret)).status).toBe(200);
    const created: any = await (
      await fetch(`${t.baseUrl}/v1/api-keys?limit=100`, {
        headers: { authorization: `Bearer ${tenant.testKey}` },
      })
    ).json();
    const key = created.data.find((k: any) => k.name === 'CI deploy');
    expect(key).toMatchObject({ scopes: ['evidence:read', 'channels:read'], memberId: owner.id });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('region', { name: 'API keys' }).waitFor();
    expect(await page.getByLabel('Secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Rotate: a new secret, the old one still works for the grace period.
    const row = (text: string) => page.getByRole('row').filter({ hasText: text });
    await row(secret.slice(0, 12)).getByRole('button', { name: 'Rotate' }).click();
    await page.getByLabel('Secret').waitFor();
    const rotated = await page.getByLabel('Secret').inputValue();
    expect(rotated).not.toBe(secret);
    expect((await bearer(rotated)).status).toBe(200);
    expect((await bearer(secret)).status).toBe(200);

    // Revoke the new key: refused from then on.
    page.once('dialog', (dialog) => void dialog.accept());
    await row(rotated.slice(0, 12)).getByRole('button', { name: 'Revoke' }).click();
    await eventually(() => textOf(row(rotated.slice(0, 12)))).toContain('revoked');
    expect((await bearer(rotated)).status).toBe(401);
    await context.close();
  });

  it('offers an analyst only the read-only scopes of the role', async () => {
    const { context, page } = await newPage(browser, t.baseUrl);
    await signInAs(page, analyst.email, PASSWORD);
    await openView(page, 'API keys');
    const scopes = page.getByRole('group', { name: 'Scopes' });
    const labels = await scopes.locator('label').allTextContents();
    expect(await scopes.getByRole('checkbox').count()).toBe(labels.length);
    expect(labels).toEqual([...ROLE_SCOPES.analyst]);
    expect(labels.some((s) => /manage|write|create/.test(s ?? ''))).toBe(false);
    // The role holds no api_keys:manage, so the API would refuse: the form says so and is disabled.
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
    await eventually(() => textOf(page.locator('main'))).toContain('cannot issue keys');
    await page.screenshot({ path: `${SHOTS}/api-keys-analyst-1280.png`, fullPage: true });
    await context.close();
  });

  it('refuses a state change that carries the cookie but not the CSRF token', async () => {
    const { context, page } = await newPage(browser, t.baseUrl);
    await signInAs(page, owner.email, PASSWORD);
    // From the page itself: the cookie goes along, the token does not.
    const inPage: any = await page.evaluate(`(async () => {
      const response = await fetch('/v1/channels', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Forged' }),
      });
      return { status: response.status, body: await response.json() };
    })()`);
    expect(inPage.status).toBe(401);
    expect(inPage.body.code).toBe('authentication_required');
    expect(inPage.body.detail).toMatch(/CSRF/);
    // Directly, with the browser's cookie: reads work, writes do not.
    const cookie = (await context.cookies()).find((c) => c.name === 'cs_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const headers = { cookie: `cs_session=${cookie?.value}`, 'content-type': 'application/json' };
    expect((await fetch(`${t.baseUrl}/v1/channels`, { headers })).status).toBe(200);
    const forged = await fetch(`${t.baseUrl}/v1/api-keys`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'x', scopes: ['channels:read'] }),
    });
    expect(forged.status).toBe(401);
    const names: any = await (await fetch(`${t.baseUrl}/v1/channels`, { headers })).json();
    expect(names.data.map((c: any) => c.name)).not.toContain('Forged');
    await context.close();
  });

  it('sends the CSRF token and a fresh Idempotency-Key with each change, ends on a 401, says when offline', async () => {
    const { context, page } = await newPage(browser, t.baseUrl);
    const sent: { method: string; path: string; headers: Record<string, string> }[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (/^\/(v1|console\/api)\//.test(pathname)) {
        sent.push({ method: request.method(), path: pathname, headers: request.headers() });
      }
    });
    const signedIn = page.waitForResponse((r) => r.url().endsWith('/console/api/sign-in'));
    await signInAs(page, owner.email, PASSWORD);
    const { csrfToken } = ((await (await signedIn).json()) as { data: { csrfToken: string } }).data;
    await openView(page, 'API keys');
    await page.getByLabel('Name').fill('Header check');
    await page.getByRole('checkbox', { name: 'channels:read' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Secret').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Header check' });
    await row.getByRole('button', { name: 'Rotate' }).click();
    await eventually(async () => sent.filter((r) => r.path.endsWith('/rotate')).length).toBe(1);

    const changes = sent.filter((r) => r.method !== 'GET' && r.path.startsWith('/v1/'));
    expect(changes.map((r) => `${r.method} ${r.path.replace(/key_\w+/, ':id')}`)).toEqual([
      'POST /v1/api-keys',
      'POST /v1/api-keys/:id/rotate',
    ]);
    for (const r of changes) {
      expect(r.headers['x-csrf-token']).toBe(csrfToken);
      expect(r.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.headers['content-type']).toBe('application/json');
    }
    expect(changes[0].headers['idempotency-key']).not.toBe(changes[1].headers['idempotency-key']);
    // Reads carry neither; the console's own routes get the token but no key.
    for (const r of sent.filter((r) => r.method === 'GET')) {
      expect(r.headers['x-csrf-token']).toBeUndefined();
      expect(r.headers['idempotency-key']).toBeUndefined();
      expect(r.headers.accept).toBe('application/json');
    }
    const signIn = sent.find((r) => r.path === '/console/api/sign-in');
    expect(signIn?.headers['idempotency-key']).toBeUndefined();
    expect(signIn?.headers).toHaveProperty('x-csrf-token');

    // No answer at all: the view says the service could not be reached.
    await page.route('**/v1/webhook-destinations*', (route) => route.abort());
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks', exact: true }).click();
    await eventually(() => textOf(page.locator('#main [role=alert]'))).toBe(
      'The service could not be reached. Check your connection and retry.',
    );
    // A 401 from /v1 (the session ended elsewhere): the view says so, and a sign-in form opens above it.
    await page.route('**/v1/exports*', (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/problem+json',
        body: JSON.stringify({ code: 'authentication_required', detail: 'Sign in.' }),
      }),
    );
    await page.getByRole('navigation').getByRole('link', { name: 'Exports', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in again' }).waitFor();
    await eventually(() => textOf(page.locator('#main [role=alert]'))).toBe(
      'Your session has ended. Sign in again above, then reload this view.',
    );
    await context.close();
  });

  it.each([1280, 390])(
    'keeps what was typed when the session ended, says the change was not saved, as an error (%i px)',
    async (width) => {
      const { context, page } = await newPage(browser, t.baseUrl, width);
      await signInAs(page, owner.email, PASSWORD);
      await openView(page, 'Webhooks');
      const url = 'http://127.0.0.1:9/typed-before-the-session-ended';
      await page.getByLabel('Endpoint URL').fill(url);
      await page.getByLabel('Description').fill('Typed by hand');
      // The session ends for real: signed out from elsewhere with the same cookie.
      const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const csrf = (await page.evaluate(`fetch('/console/api/session').then((r) => r.json())`)) as {
        data: { csrfToken: string };
      };
      const out = await t.http.post('/console/api/sign-out', {
        headers: { cookie, 'x-csrf-token': csrf.data.csrfToken },
        body: {},
      });
      expect(out.status, out.text).toBe(204);

      await page.getByRole('button', { name: 'Add destination' }).click();
      const form = page.getByRole('form', { name: 'Add destination' });
      const message = form.getByRole('alert');
      await eventually(() => textOf(message)).toBe(
        'Your session has ended, so this change was not saved. Sign in again above; what you typed is kept here.',
      );
      expect(await message.getAttribute('class')).toBe('message error');
      expect(await form.getByLabel('Endpoint URL').inputValue()).toBe(url);
      expect(await form.getByLabel('Description').inputValue()).toBe('Typed by hand');
      // Styled as an error: not the colour of a saved-it message.
      const colors = (await page.evaluate(`(() => {
        const shown = document.querySelector('form[aria-label="Add destination"] .message');
        const p = document.createElement('p'); p.className = 'message ok'; document.body.append(p);
        const ok = getComputedStyle(p).color; p.remove();
        return { shown: getComputedStyle(shown).color, ok };
      })()`)) as { shown: string; ok: string };
      expect(colors.shown).not.toBe(colors.ok);
      await expectNoHorizontalOverflow(page, `session ended at ${width} px`);
      const violations = await axeViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);

      // Signing in again keeps the page; the same click then saves what was typed.
      await page.getByRole('form', { name: 'Your session has ended' }).getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in again' }).click();
      await page.getByRole('button', { name: 'Sign in again' }).waitFor({ state: 'detached' });
      expect(await form.getByLabel('Endpoint URL').inputValue()).toBe(url);
      await page.getByRole('button', { name: 'Add destination' }).click();
      await eventually(() => textOf(page.getByRole('region', { name: 'Destinations' }))).toContain(url);
      await context.close();
    },
  );

  // One test per width: each walks seven views and screenshots them, which under a loaded machine
  // took most of one test's time budget when both widths shared it.
  it.each([1280, 360])('works in every view at %i px', async (width) => {
    const { context, page } = await newPage(browser, t.baseUrl);
    await signInAs(page, owner.email, PASSWORD);
    await page.setViewportSize({ width, height: 900 });
    for (const view of VIEWS) {
      await openView(page, view);
      if (view === 'Channels') {
        await page.getByRole('button', { name: 'Open Corner Shop' }).click();
        await page.getByLabel('Snippet HTML').waitFor();
      }
      await expectNoHorizontalOverflow(page, `${view} at ${width} px`);
      const slug = view.toLowerCase().replace(/ /g, '-');
      await page.screenshot({ path: `${SHOTS}/${slug}-${width}.png`, fullPage: true });
    }
    await context.close();
  });

  it('names each purpose of an evidence event, in the list and on the event page', async () => {
    const { context, page } = await newPage(browser, t.baseUrl);
    await signInAs(page, owner.email, PASSWORD);
    await openView(page, 'Evidence');
    const list = page.getByRole('region', { name: 'Evidence events' });
    await eventually(() => textOf(list)).toContain('Strictly necessary');
    expect(await list.textContent()).toContain('Marketing');
    await list.getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: 'Evidence event' }).waitFor();
    const decisions = page.locator('section', { has: page.getByRole('heading', { name: 'Decisions' }) });
    await eventually(() => textOf(decisions.locator('ul.decisions'))).toContain(
      'Strictly necessary necessary ✓ granted',
    );
    await context.close();
  });

  it('switches between test and live data, and signs out', async () => {
    const { context, page } = await newPage(browser, t.baseUrl);
    await signInAs(page, owner.email, PASSWORD);
    await page.setViewportSize({ width: 1280, height: 900 });

    await openView(page, 'Evidence');
    const evidence = await page.getByRole('region', { name: 'Evidence events' }).textContent();
    expect(evidence).toMatch(/psn_\*\*\*\*[0-9a-f]{4}/);
    await openView(page, 'Audit log');
    // The member by their email, beside the id.
    await eventually(() => textOf(page.getByRole('region', { name: 'Audit entries' }))).toContain(
      `member ${owner.email} ${owner.id}`,
    );

    await openView(page, 'API keys');
    await page.getByLabel('Environment').selectOption('live');
    await eventually(() => textOf(page.getByRole('region', { name: 'API keys' }))).toContain(
      'Bootstrap live key',
    );
    expect(await page.getByRole('region', { name: 'API keys' }).textContent()).not.toContain(
      'Bootstrap test key',
    );
    await page.screenshot({ path: `${SHOTS}/api-keys-live-1280.png`, fullPage: true });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('You are signed out.');
    await context.close();
  });
});
