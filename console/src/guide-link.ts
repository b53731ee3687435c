import { h } from './dom.ts';

/**
 * "the guide "<title>"" as a link to the guide the service serves (`/docs/guides/<file>`, the
 * repository's docs/guides/<file>), opened beside the console so a form half filled stays as it is.
 */
export function guideLink(title: string, file: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append(
    'the guide ',
    h(
      'a',
      { href: `/docs/guides/${file}`, target: '_blank', rel: 'noopener' },
      `“${title}” (opens in a new tab)`,
    ),
  );
  return fragment;
}
