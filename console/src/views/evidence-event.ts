import { ApiError, answer, api, type Schemas } from '../api.ts';
import { type Child, date, h } from '../dom.ts';
import { section } from '../ui.ts';
import { type ChannelPurposes, channelPurposes, decisionList, outcomeWords } from './evidence-decisions.ts';

type EvidenceEvent = Schemas['EvidenceEvent'];
type Proof = Schemas['InclusionProof'];

const SOURCES: Record<string, string> = {
  banner: 'Banner',
  preference_center: 'Preference center',
  api: 'API',
  gpc: 'Global Privacy Control',
};

function facts(rows: [string, Child][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

const code = (text: string) => h('code', { class: 'hash' }, text);

/** Where a subject's decisions are listed: every event of the subject of `eventId`. */
export const subjectDecisionsHref = (eventId: string) => `#/evidence/subject/${encodeURIComponent(eventId)}`;

/** Each purpose granted or denied, what that amounts to, and a way to the subject's other decisions. */
function decisionsSection(event: EvidenceEvent, channelName: string, purposes?: ChannelPurposes) {
  return section(
    'Decisions',
    h('p', { class: 'lead' }, `Recorded ${date(event.recordedAt)} on ${channelName}.`),
    decisionList(event.decisions, purposes),
    facts([['Outcome', outcomeWords(event.decisions, purposes)]]),
    event.gpc ? h('p', {}, 'The browser sent Global Privacy Control.') : null,
    h(
      'p',
      {},
      h('a', { href: subjectDecisionsHref(event.id) }, 'This subject’s other decisions'),
      ' (every channel of this environment).',
    ),
  );
}

function whoAndWhereSection(event: EvidenceEvent, channelName: string) {
  const channel = encodeURIComponent(event.channelId);
  return section(
    'Who and where',
    facts([
      ['Subject', h('code', {}, event.subject.pseudonym)],
      [
        'Decided for',
        event.subjectKind === 'account'
          ? 'An account: a signed-in visitor, on every device they sign in on'
          : 'A device: this browser only',
      ],
      ['Channel', h('a', { href: `#/channels/${channel}` }, channelName)],
      [
        'Config version',
        h('a', { href: `#/channels/${channel}/config-versions` }, `Version ${event.configVersion}`),
      ],
      ['Privacy policy version', event.policyVersion],
      ['Source', SOURCES[event.source] ?? event.source],
      ['Origin', event.origin ?? '—'],
      ['Region', event.region ? `${event.region}${event.regime ? ` (${event.regime})` : ''}` : '—'],
      ['Language', event.language ?? '—'],
      ['Browser', event.userAgent ?? '—'],
      ['Address prefix', event.ipPrefix ?? '—'],
      ['Event ID', h('code', {}, event.id)],
    ]),
  );
}

/** The proof's facts, or why there is none yet (a 409's detail: not sealed in a tree head yet). */
function proofFacts(proof: Proof | string): [string, Child][] {
  if (typeof proof === 'string') return [['Inclusion proof', proof]];
  return [
    ['Inclusion proof', `Leaf ${proof.leafIndex} of ${proof.treeSize}, ${proof.auditPath.length} hashes`],
    ['Root hash', code(proof.rootHash)],
    ['Tree head signed', `${date(proof.treeHead.timestamp)} with key ${proof.treeHead.keyId}`],
    ['Ledger', h('code', {}, proof.treeHead.logId)],
  ];
}

function receiptSection(event: EvidenceEvent, proof: Proof | string) {
  return section(
    'Receipt and proof',
    h(
      'p',
      { class: 'lead' },
      'The receipt is the event’s leaf hash in the evidence ledger; the proof shows that leaf is in a tree head the service signed, so the event cannot have changed since. ',
      h('a', { href: '/docs/ledger' }, 'How to verify them'),
      '.',
    ),
    facts([['Receipt (leaf hash)', code(event.receipt.hash)], ...proofFacts(proof)]),
    typeof proof === 'string'
      ? null
      : h(
          'details',
          {},
          h('summary', {}, 'Audit path'),
          h('ol', { class: 'audit-path' }, ...proof.auditPath.map((p) => h('li', {}, code(p)))),
        ),
  );
}

function tcfSection(event: EvidenceEvent) {
  if (!event.tcString) return null;
  return section(
    'TCF',
    facts([
      ['TC string', code(event.tcString)],
      ['Vendor list version', String(event.tcf?.vendorListVersion ?? '—')],
      ['Purposes consented', event.tcf?.purposeConsents?.join(', ') || '—'],
      ['Vendors consented', event.tcf?.vendorConsents?.join(', ') || '—'],
    ]),
  );
}

/**
 * One evidence event (`#/evidence/<id>`): whose decision (a device or a signed-in account), each
 * purpose granted or denied and the outcome, where it came from, and what proves it was kept
 * unchanged: its receipt (the ledger leaf hash) and its inclusion proof against the newest signed
 * tree head.
 */
export async function evidenceEventView(id: string, channels: Map<string, string>): Promise<HTMLElement> {
  const back = h('p', {}, h('a', { href: '#/evidence' }, '← All evidence events'));
  const path = { params: { path: { id } } };
  let event: EvidenceEvent;
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
  const purposes = (await channelPurposes([event.channelId])).get(event.channelId);
  const channelName = channels.get(event.channelId) ?? event.channelId;
  return h(
    'div',
    {},
    h('h1', {}, 'Evidence event'),
    back,
    decisionsSection(event, channelName, purposes),
    whoAndWhereSection(event, channelName),
    receiptSection(event, proof),
    tcfSection(event),
  );
}
