import { h } from './dom.ts';

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * An in-page index of a long page's sections (a channel runs to a dozen): a link per section
 * heading, at the top (and kept in view on a wide screen). Each link is an address of its own
 * (`#/channels/<id>/<section>`), so a section can be bookmarked and shared; following one scrolls
 * there and moves focus to its heading without reloading the view. `current` is the section the
 * address names, scrolled to once the page is on screen.
 */
export function withSectionIndex(page: HTMLElement, base: string, current: string | undefined): HTMLElement {
  const sections = [...page.children].filter(
    (el): el is HTMLElement => el.tagName === 'SECTION' && el.querySelector(':scope > h2') !== null,
  );
  const links: HTMLAnchorElement[] = [];
  const go = (section: HTMLElement, link: HTMLAnchorElement, smooth: boolean) => {
    for (const l of links) l.removeAttribute('aria-current');
    link.setAttribute('aria-current', 'true');
    const heading = section.querySelector(':scope > h2') as HTMLElement;
    heading.tabIndex = -1;
    section.scrollIntoView({ behavior: smooth ? 'smooth' : 'auto', block: 'start' });
    heading.focus({ preventScroll: true });
  };
  for (const section of sections) {
    const title = (section.querySelector(':scope > h2')?.textContent ?? '').trim();
    const id = slug(title);
    section.id = `section-${id}`;
    const href = `${base}/${id}`;
    const link = h('a', { href }, title);
    link.addEventListener('click', (event) => {
      event.preventDefault();
      // The address changes without a hashchange: the view stays as it is, scrolled.
      history.replaceState(null, '', href);
      go(section, link, true);
    });
    links.push(link);
    if (id === current) requestAnimationFrame(() => go(section, link, false));
  }
  const index = h(
    'nav',
    { class: 'card section-index', 'aria-label': 'Sections of this channel' },
    h('ul', { class: 'index-list' }, ...links.map((l) => h('li', {}, l))),
  );
  page.querySelector(':scope > h2')?.after(index);
  return page;
}
