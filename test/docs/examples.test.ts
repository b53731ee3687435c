import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ResponseValidator } from '../helpers/openapi-validation.ts';
import { callsIn, markdownFiles, ROOT } from './markdown.ts';

/**
 * Every example response in the docs (a JSON block shaped like a response: the `{data, meta,
 * error}` envelope or a problem) must match the OpenAPI schema of the call shown before it, for
 * the status it stands for. Examples went stale before (fields added since were missing); now a
 * field the schema requires, a wrong type or an elided body fails here.
 */

interface Example {
  file: string;
  line: number;
  text: string;
  /** The API call of the nearest code block above with a curl command, if any. */
  call: { method: string; path: string } | null;
}

/** The JSON blocks of a markdown file, each with the curl call shown last before it (or named). */
function examplesIn(file: string): Example[] {
  const text = fs.readFileSync(file, 'utf8');
  const examples: Example[] = [];
  let call: Example['call'] = null;
  let end = 0;
  for (const block of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    const [, lang, body] = block;
    const line = text.slice(0, block.index).split('\n').length;
    // `<!-- response: GET /v1/… -->` above a block names its call where the nearest curl is another.
    const named = /<!-- response: ([A-Z]+) (\/v1\/\S+) -->/.exec(text.slice(end, block.index));
    end = (block.index ?? 0) + block[0].length;
    if (lang === 'json') {
      const shown = named ? { method: named[1], path: named[2] } : call;
      examples.push({ file: path.relative(ROOT, file), line, text: body, call: shown });
      continue;
    }
    const scratch = path.join(ROOT, 'test-results', 'docs-block.md');
    fs.mkdirSync(path.dirname(scratch), { recursive: true });
    fs.writeFileSync(scratch, body);
    const curls = callsIn(scratch);
    if (curls.length > 0) {
      const last = curls[curls.length - 1];
      call = { method: last.method, path: last.path };
    }
  }
  return examples;
}

type Json = Record<string, unknown>;
const isEnvelope = (body: Json) =>
  'data' in body && Object.keys(body).every((key) => ['data', 'meta', 'error'].includes(key));
const isProblem = (body: Json) => typeof body.type === 'string' && typeof body.status === 'number';

describe('example responses in the docs', () => {
  let t: TestApp;
  let spec: any;
  let validator: ResponseValidator;
  beforeAll(async () => {
    t = await startTestApp();
    spec = (await t.http.get('/v1/openapi.json')).body;
    validator = new ResponseValidator(spec);
  });
  afterAll(() => t.close());

  it('match the OpenAPI schema of the call they follow', () => {
    const failures: string[] = [];
    let checked = 0;
    for (const file of markdownFiles()) {
      for (const example of examplesIn(file)) {
        const where = `${example.file}:${example.line}`;
        let body: Json;
        try {
          body = JSON.parse(example.text);
        } catch {
          failures.push(`${where}: not JSON (an elided example cannot be checked: show it whole)`);
          continue;
        }
        if (typeof body !== 'object' || body === null || !(isEnvelope(body) || isProblem(body))) continue;
        if (!example.call) {
          failures.push(`${where}: a response with no curl call above it`);
          continue;
        }
        const { method, path: pathname } = example.call;
        // A 405 is the answer of a path to a method it does not have: the path must have others.
        if (isProblem(body) && body.status === 405 && !validator.operation(method, pathname)) {
          const others = ['GET', 'POST', 'PATCH', 'DELETE'].filter((m) => validator.operation(m, pathname));
          if (others.length === 0)
            failures.push(`${where}: a 405 of ${pathname}, which is no path of the API`);
          checked++;
          continue;
        }
        const operation = validator.operation(method, pathname)?.operation;
        const status = isProblem(body)
          ? (body.status as number)
          : Number(Object.keys(operation?.responses ?? {}).find((key) => /^2\d\d$/.test(key)));
        const problems = validator.checkExample(method, pathname, status, body);
        if (problems === null) failures.push(`${where}: ${method} ${pathname} is no operation of the API`);
        else if (problems.length > 0)
          failures.push(`${where} (${method} ${pathname} ${status}): ${problems.join('; ')}`);
        checked++;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(15);
  });

  it('catch a stale example', () => {
    const stale = { data: { id: 'ch_x', name: 'Shop' } };
    const problems = validator.checkExample('GET', '/v1/channels/ch_x', 200, stale);
    expect(problems?.join(' ')).toMatch(/must have required property/);
  });
});
