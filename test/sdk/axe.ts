import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.0 A and AA and 2.1 AA rules: what the banner and the console promise to pass. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa'];

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** One line per failing element: its selector and axe's summary of why. */
  nodes: string[];
}

/**
 * Runs axe-core in the page over `selector` (the whole document without one). The source goes in
 * through page.evaluate, which the console's CSP (script-src 'self') does not apply to, unlike a
 * script tag; it is injected once per document.
 */
export async function axeViolations(page: Page, selector?: string): Promise<AxeViolation[]> {
  if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE_SOURCE);
  const context = selector ? JSON.stringify(selector) : 'document';
  return page.evaluate(`axe.run(${context}, {
      runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_TAGS)} },
      resultTypes: ['violations'],
    }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary.replace(/\\s+/g, ' ')),
    })))`);
}

/** A readable failure message: every violated rule with its elements. */
export const describeViolations = (violations: AxeViolation[]) =>
  violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.join('\n  ')}`).join('\n');
