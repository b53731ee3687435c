import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { AppError, ERROR_CODES, type ErrorCode } from './errors.ts';
import { escapeHtml, renderMarkdown } from './markdown.ts';
import type { App } from './types.ts';

/**
 * `GET /docs/errors/<code>`: the page each problem's `type` names, rendered from the repository's
 * docs/errors/<code>.md (its causes, the fix and an example request with the problem it returns),
 * so the page a client follows and the file a reader opens are one text. Read once at start.
 */
const ERRORS_DIR = fileURLToPath(new URL('../../../docs/errors/', import.meta.url));

interface ErrorPage {
  /** The page's first paragraph, as plain text: the index's one line. */
  summary: string;
  html: string;
}

/** Where a link of a page goes on the running service: error pages, guides, or the web. */
function linkTarget(href: string): string | null {
  if (/^https?:\/\//.test(href)) return href;
  const [file] = href.split('#');
  if (file === 'README.md') return '/docs/errors';
  const code = /^([a-z_]+)\.md$/.exec(file);
  if (code && Object.hasOwn(ERROR_CODES, code[1])) return `/docs/errors/${code[1]}`;
  const guide = /^\.\.\/guides\/([a-z0-9-]+\.md)$/.exec(file);
  if (guide) return `/docs/guides/${guide[1]}`;
  return null;
}

/** The first paragraph under the title, without its markup. */
function summaryOf(markdown: string): string {
  const body = markdown.replace(/<!--[\s\S]*?-->/g, '').split(/\n\s*\n/);
  const first = body.find((block) => block.trim() && !block.trim().startsWith('#')) ?? '';
  return first
    .replace(/\s+/g, ' ')
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\*\*|`/g, '')
    .trim();
}

export function loadErrorPages(dir = ERRORS_DIR): Partial<Record<ErrorCode, ErrorPage>> {
  const pages: Partial<Record<ErrorCode, ErrorPage>> = {};
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    const file = path.join(dir, `${code}.md`);
    if (!fs.existsSync(file)) continue;
    const markdown = fs.readFileSync(file, 'utf8');
    pages[code] = { summary: summaryOf(markdown), html: renderMarkdown(markdown, linkTarget) };
  }
  return pages;
}

const STYLE =
  'font-family: system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5';
const PRE_STYLE =
  '<style>pre{background:#f4f4f4;padding:.75rem;overflow:auto;border-radius:4px}code{font-size:.92em}</style>';

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · consent-service</title>
<meta name="viewport" content="width=device-width, initial-scale=1">${PRE_STYLE}</head>
<body style="${STYLE}">
${body}
</body></html>`;
}

export function errorPageRoutes(app: App) {
  const pages = loadErrorPages();

  app.get(
    '/docs/errors/:code',
    { schema: { hide: true, params: Type.Object({ code: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const code = request.params.code as ErrorCode;
      if (!Object.hasOwn(ERROR_CODES, code)) throw new AppError('not_found', `No error code ${code}.`);
      const { status, title } = ERROR_CODES[code];
      const written = pages[code];
      reply.type('text/html; charset=utf-8');
      return page(
        code,
        `<p><a href="/docs/errors">All error codes</a></p>
${written ? written.html : `<h1><code>${escapeHtml(code)}</code></h1>`}
<p><strong>HTTP ${status}</strong> · ${escapeHtml(title)}. Every error is an RFC 9457 problem
(<code>application/problem+json</code>) with <code>type</code>, <code>title</code>, <code>status</code>,
<code>code</code>, <code>detail</code>, <code>instance</code> and <code>requestId</code>; the
<code>detail</code> says what was wrong with this request.</p>`,
      );
    },
  );

  app.get('/docs/errors', { schema: { hide: true } }, async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    const rows = (Object.keys(ERROR_CODES) as ErrorCode[])
      .map(
        (c) =>
          `<tr><td><a href="/docs/errors/${c}"><code>${c}</code></a></td><td>${ERROR_CODES[c].status}</td><td>${escapeHtml(pages[c]?.summary ?? ERROR_CODES[c].title)}</td></tr>`,
      )
      .join('\n');
    return page(
      'Error codes',
      `<h1>Error codes</h1><table><thead><tr><th>Code</th><th>Status</th><th>Meaning</th></tr></thead><tbody>${rows}</tbody></table>`,
    );
  });
}
