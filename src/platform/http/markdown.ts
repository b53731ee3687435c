/**
 * The small part of Markdown the error pages are written in (docs/errors/*.md), as HTML: headings,
 * paragraphs, `-` lists (an item continues on lines indented by two spaces), fenced code blocks,
 * and inline code, bold and links. HTML comments are dropped. Everything is escaped: the files are
 * the repository's, but nothing in them is taken as markup.
 */

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A link's target as the service serves it: another error page, a guide, or an absolute URL. */
export type LinkTarget = (href: string) => string | null;

/** Inline code first (its text is literal), then bold and links in the rest. */
function inline(text: string, link: LinkTarget): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1)
        return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part)
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_whole, label: string, href: string) => {
          const target = link(href.replace(/&amp;/g, '&'));
          return target === null ? label : `<a href="${escapeHtml(target)}">${label}</a>`;
        });
    })
    .join('');
}

export function renderMarkdown(source: string, link: LinkTarget): string {
  const lines = source.replace(/<!--[\s\S]*?-->/g, '').split('\n');
  const out: string[] = [];
  let paragraph: string[] = [];
  let items: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push(`<p>${inline(paragraph.join(' '), link)}</p>`);
    if (items.length) out.push(`<ul>${items.map((i) => `<li>${inline(i, link)}</li>`).join('')}</ul>`);
    paragraph = [];
    items = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      while (++i < lines.length && !/^```\s*$/.test(lines[i])) code.push(lines[i]);
      const lang = fence[1] ? ` class="language-${fence[1]}"` : '';
      out.push(`<pre><code${lang}>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,3}) (.+)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1].length;
      out.push(`<h${level}>${inline(heading[2], link)}</h${level}>`);
    } else if (/^- /.test(line)) {
      if (paragraph.length) flush();
      items.push(line.slice(2));
    } else if (/^ {2}\S/.test(line) && items.length) {
      items[items.length - 1] += ` ${line.trim()}`;
    } else if (line.trim() === '') {
      flush();
    } else {
      if (items.length) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return out.join('\n');
}
