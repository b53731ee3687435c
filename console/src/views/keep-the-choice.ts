import { nginxLocation } from '../../../src/shared/first-party-proxy.ts';
import { api, type RequestBody, type Schemas } from '../api.ts';
import { copyField, field, h, input } from '../dom.ts';
import { form, section, type ViewContext } from '../ui.ts';

/** What of a channel this section reads and writes (docs/guides/keep-the-choice.md). */
export type KeepChannel = Pick<
  Schemas['Channel'],
  'id' | 'firstPartyPath' | 'cookieDomain' | 'crossDomain' | 'imports'
>;
type Imports = NonNullable<RequestBody<'/v1/channels/{id}', 'patch'>['imports']>;
type Cmp = Imports[number]['from'];

/** The CMPs a channel may import from, with the shape of their category ids. */
const CMPS: Array<[Cmp, string, string]> = [
  ['onetrust', 'OneTrust (OptanonConsent)', 'Group ids, e.g. C0002=analytics, C0004=marketing'],
  ['cookiebot', 'Cookiebot (CookieConsent)', 'preferences, statistics, marketing, e.g. statistics=analytics'],
  ['tcf', 'IAB TCF (euconsent-v2)', 'TCF purposes 1–11, e.g. 1=analytics, 4=marketing'],
];

/** `C0002=analytics, C0004=marketing` for a mapping, and back; the API checks each side. */
const mappingText = (purposes: Record<string, string>) =>
  Object.entries(purposes)
    .map(([theirs, ours]) => `${theirs}=${ours}`)
    .join(', ');

function parseMapping(text: string): Record<string, string> {
  const purposes: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const [theirs, ours] = pair.split('=').map((part) => part?.trim() ?? '');
    if (theirs) purposes[theirs] = ours ?? '';
  }
  return purposes;
}

/**
 * "Keep the choice": the channel's first-party path (with the nginx location to copy, made with
 * this service's address, `serviceUrl`: its BASE_URL, as the snippet names it), cookie domain, handoffs to its other domains and imports from the
 * previous CMP, saved together with PATCH /v1/channels/:id. The API's validation (the Public Suffix
 * List for the cookie domain, the purposes for the imports) is the one that decides; its detail is
 * shown under the form.
 */
export function keepTheChoiceSection(
  ctx: ViewContext,
  channel: KeepChannel,
  manage: boolean,
  serviceUrl: string,
): HTMLElement {
  const path = channel.firstPartyPath ?? null;
  const imports = channel.imports ?? [];
  const id = (name: string) => `${name}-${channel.id}`;
  const crossDomain = h('input', {
    type: 'checkbox',
    name: 'crossDomain',
    id: id('cross-domain'),
    checked: channel.crossDomain ?? false,
  });
  const pathInput = input('firstPartyPath', { id: id('first-party-path'), placeholder: '/consent' });
  pathInput.value = path ?? '';
  const domainInput = input('cookieDomain', { id: id('cookie-domain'), placeholder: 'example.com' });
  domainInput.value = channel.cookieDomain ?? '';
  const importInputs = CMPS.map(([cmp, label, hint]) => {
    const control = input(`import-${cmp}`, { id: id(`import-${cmp}`) });
    control.value = mappingText(imports.find((entry) => entry.from === cmp)?.purposes ?? {});
    return { cmp, control, row: field(`Import from ${label}`, control, `${hint}. Empty: not imported.`) };
  });

  const editor = form(
    'Keep the choice',
    [
      field(
        'First-party path',
        pathInput,
        'A path on your own origins that your web server forwards to this service, e.g. /consent. Empty: none.',
      ),
      field(
        'Cookie domain',
        domainInput,
        'Your registrable domain, e.g. example.com, so one decision holds on every subdomain. Empty: host-only.',
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: crossDomain.id }, crossDomain, ' Hand the choice over to the other domains'),
        h('small', {}, 'When your origins are on more than one registrable domain.'),
      ),
      ...importInputs.map((entry) => entry.row),
    ],
    'Save',
    async () => {
      const mapped: Imports = [];
      for (const { cmp, control } of importInputs) {
        const purposes = parseMapping(control.value);
        if (Object.keys(purposes).length > 0) mapped.push({ from: cmp, purposes });
      }
      await api.PATCH('/v1/channels/{id}', {
        params: { path: { id: channel.id } },
        body: {
          firstPartyPath: pathInput.value.trim() || null,
          cookieDomain: domainInput.value.trim() || null,
          crossDomain: crossDomain.checked,
          imports: mapped,
        },
      });
      ctx.refresh();
    },
  );

  const summary = [
    path
      ? `First-party path: ${path}.`
      : 'No first-party path: the SDK keeps the choice itself (Safari deletes it after 7 days without a visit).',
    channel.cookieDomain ? `Cookie domain: ${channel.cookieDomain}.` : 'Host-only cookie.',
    channel.crossDomain ? 'Handed over to the other domains.' : 'Not handed over.',
    imports.length > 0 ? `Imports from: ${imports.map((entry) => entry.from).join(', ')}.` : 'No imports.',
  ].join(' ');
  const el = section(
    'Keep the choice',
    h('p', {}, summary),
    path
      ? copyField(
          'nginx: forward the path to this service (put it in your site’s server block)',
          nginxLocation(path, serviceUrl),
          true,
        )
      : null,
    manage ? editor : null,
  );
  el.classList.add('keep-the-choice');
  return el;
}
