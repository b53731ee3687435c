import { describe, expect, it } from 'vitest';
import { schemeDetail } from '../../../../src/platform/auth/authorization-header.ts';
import { renderMarkdown } from '../../../../src/platform/http/markdown.ts';
import { findPlaceholder } from '../../../../src/platform/http/placeholders.ts';
import { requestLineFault } from '../../../../src/platform/http/request-line.ts';

describe('findPlaceholder', () => {
  it('finds an ellipsis in any id, and three dots alone or after an id prefix', () => {
    expect(findPlaceholder({ id: 'ch_…' }, {})).toEqual({ where: 'path parameter id', value: 'ch_…' });
    expect(findPlaceholder({}, { channelId: 'ch_...' })?.where).toBe('query parameter channelId');
    expect(findPlaceholder({ siteKey: 'site_test_...' }, {})?.value).toBe('site_test_...');
    expect(findPlaceholder({}, { cursor: ['a', '…'] })?.where).toBe('query parameter cursor');
    expect(findPlaceholder({ id: '...' }, {})?.value).toBe('...');
  });

  it('leaves real values and free text alone', () => {
    expect(findPlaceholder({ id: 'ch_JIvv0xqaogjFHs1eFgMRrA' }, { limit: '5' })).toBeNull();
    expect(findPlaceholder({ id: 'ch_a...b' }, {})).toBeNull();
    expect(findPlaceholder({}, { subjectId: 'Jean…', accountId: '…', q: 'ad…' })).toBeNull();
    expect(findPlaceholder(null, undefined)).toBeNull();
  });
});

describe('requestLineFault', () => {
  const raw = (line: string) => Buffer.from(`${line}\r\nHost: x\r\n\r\n`);
  it('names the route parameter of a raw ellipsis, through the route it reaches', () => {
    const routes = (_method: string, path: string) =>
      path.startsWith('/v1/channels/') ? { id: decodeURIComponent(path.split('/')[3]) } : null;
    const fault = requestLineFault(raw('GET /v1/channels/ch_\u2026 HTTP/1.1'), routes);
    expect(fault?.detail).toContain('The path parameter id holds the placeholder "ch_…"');
    expect(fault?.errors).toEqual([{ path: 'path:/id', message: 'is a placeholder' }]);
  });
  it('still names the byte of another character, without a route', () => {
    const fault = requestLineFault(raw('GET /v1/x?q=caf\u00e9 HTTP/1.1'));
    expect(fault?.detail).toContain(
      'Query parameter q holds a character that must be percent-encoded (byte 0xC3)',
    );
    expect(fault?.instance).toBe('/v1/x');
  });
});

describe('schemeDetail', () => {
  it('never repeats what follows a scheme, and names only a short scheme', () => {
    const secret = 'svc_test_abcdefghijklmnopqrstuvwxyz0123456789AB';
    for (const header of [
      secret,
      `Basic ${secret}`,
      `Bearer ${secret} more`,
      `${'X'.repeat(30)} ${secret}`,
    ]) {
      expect(schemeDetail(header)).not.toContain(secret);
      expect(schemeDetail(header)).toContain('Authorization: Bearer <key>');
    }
    expect(schemeDetail(`${'X'.repeat(30)} y`)).not.toContain('XXXX');
  });
});

describe('renderMarkdown', () => {
  const link = (href: string) => (href.endsWith('.md') ? `/docs/errors/${href.slice(0, -3)}` : null);
  it('renders the subset the error pages use, escaping everything', () => {
    const html = renderMarkdown(
      [
        '# `not_found`',
        '',
        '**404.** No such <thing>, see [other](other.md) and [nowhere](x.txt).',
        '',
        '## Causes',
        '',
        '- one `a<b>`',
        '  continued',
        '- two',
        '',
        '<!-- not run: hidden -->',
        '```sh',
        'curl -s "$BASE/v1/x" <&>',
        '```',
      ].join('\n'),
      link,
    );
    expect(html).toBe(
      [
        '<h1><code>not_found</code></h1>',
        '<p><strong>404.</strong> No such &lt;thing&gt;, see <a href="/docs/errors/other">other</a> and nowhere.</p>',
        '<h2>Causes</h2>',
        '<ul><li>one <code>a&lt;b&gt;</code> continued</li><li>two</li></ul>',
        '<pre><code class="language-sh">curl -s &quot;$BASE/v1/x&quot; &lt;&amp;&gt;</code></pre>',
      ].join('\n'),
    );
  });
});

// store-independent: pure functions (placeholders, request lines, header details, markdown)
