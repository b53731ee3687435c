import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { anchors, callsIn, GUIDES, markdownFiles, matchOperation, ROOT, withoutCode } from './markdown.ts';

// The user guides promise commands that work: these checks keep their links and the API calls they
// show in step with the repository and the served OpenAPI document.

describe('user guides', () => {
  let t: TestApp;
  let spec: any;
  beforeAll(async () => {
    t = await startTestApp();
    spec = (await t.http.get('/v1/openapi.json')).body;
  });
  afterAll(() => t.close());

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const [, link] of withoutCode(fs.readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(link)) continue;
        const [target, anchor] = link.split('#');
        const resolved = target ? path.resolve(path.dirname(file), target) : file;
        if (!fs.existsSync(resolved)) broken.push(`${path.relative(ROOT, file)}: ${link}`);
        else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
          broken.push(`${path.relative(ROOT, file)}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('call only operations and query parameters of the OpenAPI document', () => {
    // The guides themselves (docs/guides/keep-the-choice/ holds a configuration file beside them).
    const calls = fs
      .readdirSync(GUIDES)
      .filter((name) => name.endsWith('.md'))
      .flatMap((name) => callsIn(path.join(GUIDES, name)));
    expect(calls.length).toBeGreaterThan(40);
    const unknown: string[] = [];
    for (const call of calls) {
      const operation = matchOperation(spec, call);
      if (!operation) {
        unknown.push(`${call.file}: ${call.method} ${call.path}`);
        continue;
      }
      const declared = new Set(
        (operation.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
      );
      for (const name of call.query.filter((q) => !declared.has(q)))
        unknown.push(`${call.file}: ${call.method} ${call.path} ?${name}`);
    }
    expect(unknown).toEqual([]);
  });

  it('catch a call that the API does not have', () => {
    const made = { file: 'x.md', method: 'POST', path: '/v1/channels/$CH/purges', query: [] };
    expect(matchOperation(spec, made)).toBeNull();
    const wrongMethod = { file: 'x.md', method: 'DELETE', path: '/v1/channels/$CH', query: [] };
    expect(matchOperation(spec, wrongMethod)).toBeNull();
  });
});
