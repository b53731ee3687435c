import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/platform/http/errors.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { SITES_TEST_ENV } from '../helpers/sites.ts';
import { curlRequests, send } from './curl.ts';
import { errorExamplesWorld } from './error-examples-world.ts';
import { ROOT, withoutCode } from './markdown.ts';

/**
 * Every code the service can emit (the closed table, errors.ts) has its page in docs/errors/, with
 * its causes, the fix and an example: a curl request and the problem it returns. The examples are
 * run against the service, so each one gets the code, status and detail its page shows; the few
 * that need what one request cannot make (an outage, a minute of requests) say why they are not.
 */
const DIR = path.join(ROOT, 'docs/errors');
const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

interface Example {
  curl: string;
  problem: Record<string, any>;
  /** Why the example is not run, from `<!-- not run: … -->` above it; null: it is run. */
  notRun: string | null;
}

interface Page {
  title: string;
  sections: Record<string, string>;
  examples: Example[];
}

function readPage(code: ErrorCode): Page {
  const text = fs.readFileSync(path.join(DIR, `${code}.md`), 'utf8');
  const [head, ...rest] = text.split(/^## /m);
  const sections = Object.fromEntries(
    rest.map((part) => [part.slice(0, part.indexOf('\n')).trim(), part.slice(part.indexOf('\n') + 1)]),
  );
  const examples: Example[] = [];
  const blocks = [
    ...(sections.Example ?? '').matchAll(/(<!-- not run: ([^>]*?) -->\s*)?```(\w+)\n([\s\S]*?)^```/gm),
  ];
  for (let i = 0; i < blocks.length; i++) {
    const [, , notRun, lang, body] = blocks[i];
    const next = blocks[i + 1];
    if (lang !== 'sh' || !next || next[3] !== 'json') continue;
    examples.push({ curl: body, problem: JSON.parse(next[4]), notRun: notRun?.trim() ?? null });
    i++;
  }
  return { title: head.match(/^# (.+)$/m)?.[1] ?? '', sections, examples };
}

/** `…` in a documented detail stands for what differs from one run to the next (an id, a count). */
const detailPattern = (documented: string) =>
  new RegExp(
    `^${documented
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*')}$`,
  );

describe('error pages (docs/errors)', () => {
  it('exist for exactly the codes of the table, and the README lists each', () => {
    const files = fs.readdirSync(DIR).filter((name) => name.endsWith('.md') && name !== 'README.md');
    expect(files.map((name) => name.slice(0, -3)).sort()).toEqual([...CODES].sort());
    const index = fs.readFileSync(path.join(DIR, 'README.md'), 'utf8');
    for (const code of CODES) expect(index, code).toContain(`[\`${code}\`](${code}.md)`);
  });

  it('state the causes and the fix, beyond the one-line detail, with an example of the code', () => {
    for (const code of CODES) {
      const page = readPage(code);
      expect(page.title, code).toBe(`\`${code}\``);
      const causes = withoutCode(page.sections.Causes ?? '');
      const fix = withoutCode(page.sections.Fix ?? '');
      expect(causes.match(/^- \S/gm)?.length ?? 0, `${code}: causes as a list`).toBeGreaterThan(0);
      expect(fix.trim().length, `${code}: a fix`).toBeGreaterThan(60);
      expect(page.examples.length, `${code}: an example`).toBeGreaterThan(0);
      for (const { problem, notRun } of page.examples) {
        expect(problem.code, code).toBe(code);
        expect(problem.status, code).toBe(ERROR_CODES[code].status);
        expect(problem.type, code).toBe(`http://localhost:3000/docs/errors/${code}`);
        // The page says more than the problem it explains.
        const said = `${causes} ${fix}`.replace(/\s+/g, ' ');
        expect(said.length, code).toBeGreaterThan(2 * problem.detail.length);
        if (notRun !== null) expect(notRun.length, `${code}: why the example is not run`).toBeGreaterThan(10);
        // A detail shown as it is, not as an ellipsis: `…` only stands in for what varies.
        expect(problem.detail.replace(/…/g, '').length, `${code}: the detail shown`).toBeGreaterThan(20);
      }
    }
  });

  describe('on the running service', () => {
    let t: TestApp;
    let vars: Record<string, string>;
    beforeAll(async () => {
      t = await startTestApp({ env: SITES_TEST_ENV });
      vars = await errorExamplesWorld(t);
    });
    afterAll(() => t.close());

    it('are served at /docs/errors/<code> with their sections, and listed at /docs/errors', async () => {
      const index = await t.http.get('/docs/errors');
      for (const code of CODES) {
        expect(index.text).toContain(`href="/docs/errors/${code}"`);
        const page = await t.http.get(`/docs/errors/${code}`);
        expect(page.status, code).toBe(200);
        for (const heading of ['Causes', 'Fix', 'Example'])
          expect(page.text, code).toContain(`<h2>${heading}</h2>`);
        expect(page.text, code).toContain('<pre><code class="language-sh">curl');
        expect(page.text, code).toContain(`&quot;code&quot;: &quot;${code}&quot;`);
        expect(page.text, code).toContain(String(ERROR_CODES[code].status));
      }
    });

    it('give examples that get the code, status and detail they show', async () => {
      let run = 0;
      const notRun: string[] = [];
      for (const code of CODES) {
        for (const example of readPage(code).examples) {
          if (example.notRun !== null) {
            notRun.push(code);
            continue;
          }
          const requests = curlRequests(example.curl, vars);
          let last: Awaited<ReturnType<typeof send>> | null = null;
          for (const request of requests) last = await send(request);
          const where = `${code}: ${last?.text}`;
          expect(last?.status, where).toBe(example.problem.status);
          expect(last?.body?.code, where).toBe(code);
          expect(last?.body?.detail, where).toMatch(detailPattern(example.problem.detail));
          for (const member of ['errors', 'invalidScopes', 'notAllowedScopes', 'requiredScope']) {
            if (example.problem[member] === undefined) continue;
            expect(JSON.stringify(last?.body?.[member]), where).toMatch(
              detailPattern(JSON.stringify(example.problem[member])),
            );
          }
          run++;
        }
      }
      // What one request cannot show: an outage, a clock, a minute of traffic, a concurrent request.
      expect(notRun.length, notRun.join(', ')).toBeLessThanOrEqual(9);
      expect(run).toBeGreaterThanOrEqual(CODES.length - 9);
    });
  });
});
