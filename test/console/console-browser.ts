import fs from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Role } from '../../src/platform/auth/scopes.ts';
import type { TestApp } from '../helpers/app.ts';
import { launchChromium } from '../sdk/harness.ts';
import { memberWithPassword, PASSWORD } from './console-helpers.ts';

export { browserSkipReason } from '../sdk/harness.ts';
export const SHOTS = 'test-results/console';

/** One Chromium per test file (2 shared cores); each test opens its own context, so no cookie leaks. */
export async function openBrowser(): Promise<Browser> {
  fs.mkdirSync(SHOTS, { recursive: true });
  return launchChromium();
}

export async function newPage(browser: Browser, baseUrl: string, width = 1280) {
  const context: BrowserContext = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width, height: 900 },
  });
  const page = await context.newPage();
  // A step that cannot happen fails within seconds and says which, instead of the test's timeout.
  page.setDefaultTimeout(8000);
  return { context, page };
}

/** Signs in through the form, with the keyboard only (Tab between fields, Enter submits). */
export async function signInWithKeyboard(page: Page, email: string, password: string) {
  await page.goto('/console');
  await page.getByLabel('Email').waitFor();
  await page.getByLabel('Email').focus();
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
}

export async function signInAs(page: Page, email: string, password: string) {
  await page.goto('/console');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

/** A new member of `organizationId` with `role`, signed in on a page of its own. */
export async function signedInMember(t: TestApp, browser: Browser, organizationId: string, role: Role) {
  const member = await memberWithPassword(t, organizationId, role);
  const { context, page } = await newPage(browser, t.baseUrl);
  await signInAs(page, member.email, PASSWORD);
  return { member, context, page };
}

/** Opens a view through its navigation link and waits for its heading. */
export async function openView(page: Page, name: string) {
  await page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  await page.locator('.loading').waitFor({ state: 'detached' });
}

/** Nothing wider than the viewport: the page never scrolls sideways (tables scroll inside their box). */
export async function expectNoHorizontalOverflow(page: Page, where: string) {
  // A string, evaluated in the page: the root tsconfig has no DOM types.
  const overflow = (await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !el.closest('.table-wrap'))
      .map((el) => el.tagName.toLowerCase() + '.' + el.className);
    return { scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5) };
  })()`)) as { scroll: number; width: number; wide: string[] };
  expect(overflow.scroll, `${where}: ${overflow.wide.join(', ')}`).toBeLessThanOrEqual(overflow.width);
}

/** A locator's text for expect.poll: '' while it is not there yet (textContent alone would wait forever). */
export const textOf = (locator: Locator) =>
  locator.textContent({ timeout: 1000 }).then(
    (text) => text ?? '',
    () => '',
  );

/** expect.poll with room for a busy machine (a sign-in runs scrypt; two cores are shared). */
export const eventually = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 10_000, interval: 100 });
