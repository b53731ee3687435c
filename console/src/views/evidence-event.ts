import { ApiError, answer, api, type Schemas } from '../api.ts';
import { type Child, date, h } from '../dom.ts';
import { section } from '../ui.ts';

const SOURCES: Record<string, string> = {
  banner: 'Banner',
  preference_center: 'Preference center',
  api: 'API',
  gpc: 'Global Privacy Control',
};

/**
 * A decision as a coloured mark that also says it in words (granted ✓ / denied ✕): colour alone
 * tells nothing to a reader who cannot see it, or prints in grey.
 */
function decisionMark(key: string, value: string, name: string | undefined): HTMLElement {
  const granted = value === 'granted';
  return h(
    'li',
    { class: `decision decision-${granted ? 'granted' : 'denied'}` },
    // The purpose's name, as the banner shows it, with its key for a reader of the API.
    name && name !== key ? h('span', { class: 'purpose-name' }, `${name} `) : null,
    h('code', {}, key),
    ' ',
    h(
      'span',
      { class: 'decision-value' },
      h('span', { 'aria-hidden': 'true' }, granted ? '✓ ' : '✕ '),
      value,
    ),
  );
}

/** An event's decisions, purpose by purpose, for the table and the event page alike. */
export function decisionList(decisions: Record<string, string>, names?: Map<string, string>): HTMLElement {
  return h(
    'ul',
    { class: 'decisions' },
    ...Object.entries(decisions).map(([k, v]) => decisionMark(k, v, names?.get(k))),
  );
}

/**
 * The purposes' names of each channel (key → name), one call per channel; a channel whose purposes
 * cannot be read shows the keys alone.
 */
export async function purposeNames(channelIds: Iterable<string>): Promise<Map<string, Map<string, string>>> {
  const ids = [...new Set(channelIds)];
  const lists = await Promise.all(
    ids.map((id) =>
      answer(api.GET('/v1/channels/{id}/purposes', { params: { path: { id }, query: { limit: 100 } } })).then(
        (r) => new Map(r.data.map((p) => [p.key, p.name])),
        () => new Map<string, string>(),
      ),
    ),
  );
  return new Map(ids.map((id, i) => [id, lists[i]]));
}

function facts(rows: [string, Child][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

const code = (text: string) => h('code', { class: 'hash' }, text);

/**
 * One evidence event (`#/evidence/<id>`): whose decision (a device or a signed-in account), each
 * purpose granted or denied, where it came from, and what proves it was kept unchanged: its
 * receipt (the ledger leaf hash) and its inclusion proof against the newest signed tree head.
 */
export async function evidenceEventView(id: string, channels: Map<string, string>): Promise<HTMLElement> {
  const back = h('p', {}, h('a', { href: '#/evidence' }, '← All evidence events'));
  const path = { params: { path: { id } } };
  let event: Schemas['EvidenceEvent'];
  try {
    event = (await answer(api.GET('/v1/evidence/{id}', path))).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      return h(
        'div',
        {},
        h('h1', {}, 'Evidence'),
        back,
        section('Event not found', h('p', {}, error.detail)),
      );
    throw error;
  }
  const proof = await answer(api.GET('/v1/evidence/{id}/proof', path)).then(
    (r) => r.data,
    (error: unknown) =>
      error instanceof ApiError && error.status === 409 ? error.detail : Promise.reject(error),
  );
  const names = (await purposeNames([event.channelId])).get(event.channelId);
  const channelName = channels.get(event.channelId) ?? event.channelId;
  const account = event.subjectKind === 'account';
  const channelLink = h('a', { href: `#/channels/${encodeURIComponent(event.channelId)}` }, channelName);
  const versionLink = h(
    'a',
    { href: `#/channels/${encodeURIComponent(event.channelId)}/config-versions` },
    `Version ${event.configVersion}`,
  );
  const tcf = event.tcString
    ? section(
        'TCF',
        facts([
          ['TC string', code(event.tcString)],
          ['Vendor list version', String(event.tcf?.vendorListVersion ?? '—')],
          ['Purposes consented', event.tcf?.purposeConsents?.join(', ') || '—'],
          ['Vendors consented', event.tcf?.vendorConsents?.join(', ') || '—'],
        ]),
      )
    : null;
  return h(
    'div',
    {},
    h('h1', {}, 'Evidence event'),
    back,
    section(
      'Decisions',
      h('p', { class: 'lead' }, `Recorded ${date(event.recordedAt)} on ${channelName}.`),
      decisionList(event.decisions, names),
      event.gpc ? h('p', {}, 'The browser sent Global Privacy Control.') : null,
    ),
    section(
      'Who and where',
      facts([
        ['Subject', h('code', {}, event.subject.pseudonym)],
        [
          'Decided for',
          account
            ? 'An account: a signed-in visitor, on every device they sign in on'
            : 'A device: this browser only',
        ],
        ['Channel', channelLink],
        ['Config version', versionLink],
        ['Privacy policy version', event.policyVersion],
        ['Source', SOURCES[event.source] ?? event.source],
        ['Origin', event.origin ?? '—'],
        ['Region', event.region ? `${event.region}${event.regime ? ` (${event.regime})` : ''}` : '—'],
        ['Language', event.language ?? '—'],
        ['Browser', event.userAgent ?? '—'],
        ['Address prefix', event.ipPrefix ?? '—'],
        ['Event ID', h('code', {}, event.id)],
      ]),
    ),
    section(
      'Receipt and proof',
      h(
        'p',
        { class: 'lead' },
        'The receipt is the event’s leaf hash in the evidence ledger; the proof shows that leaf is in a tree head the service signed, so the event cannot have changed since. ',
        h('a', { href: '/docs/ledger' }, 'How to verify them'),
        '.',
      ),
      facts([
        ['Receipt (leaf hash)', code(event.receipt.hash)],
        ...(typeof proof === 'string'
          ? ([['Inclusion proof', proof]] as [string, Child][])
          : ([
              [
                'Inclusion proof',
                `Leaf ${proof.leafIndex} of ${proof.treeSize}, ${proof.auditPath.length} hashes`,
              ],
              ['Root hash', code(proof.rootHash)],
              ['Tree head signed', `${date(proof.treeHead.timestamp)} with key ${proof.treeHead.keyId}`],
              ['Ledger', h('code', {}, proof.treeHead.logId)],
            ] as [string, Child][])),
      ]),
      typeof proof === 'string'
        ? null
        : h(
            'details',
            {},
            h('summary', {}, 'Audit path'),
            h('ol', { class: 'audit-path' }, ...proof.auditPath.map((p) => h('li', {}, code(p)))),
          ),
    ),
    tcf,
  );
}
