import {
  cookieNameMatches,
  hostMatches,
  isNecessaryCategory,
  OWN_VENDOR,
} from '../../../src/shared/scans-matching.ts';
import { answer, api, type Schemas } from '../api.ts';
import { button, date, field, h, input, table } from '../dom.ts';
import { act, badge, form, messageBox, noticeAfterRedraw, type ViewContext } from '../ui.ts';

/** A tracker scan and what it found, as the typed client's schema has them. */
type Scan = Schemas['Scan'];
export type ScanFinding = Schemas['ScanFinding'];
type Phase = ScanFinding['phase'];
/** The technology fields this file reads. */
export type DeclaredTechnology = Pick<Schemas['Technology'], 'id' | 'name' | 'cookies' | 'hosts'>;
type PurposeRow = Pick<Schemas['Purpose'], 'key' | 'required' | 'status'>;

const PHASES: [Phase, string][] = [
  ['before-consent', 'Before consent'],
  ['after-reject', 'After reject all'],
  ['after-accept', 'After accept all'],
];
const KIND_NAMES = { cookie: 'Cookie', storage: 'Storage key', request: 'Request' } as const;
/** How often the view asks whether a queued or running scan has finished (a scan takes seconds per page). */
const POLL_MS = 2000;

// Which scan's findings are open survives a redraw, like the open channel; so does the notice of
// what a click added (adding redraws the whole view, with the technology in its table). Both are
// kept per console (ViewContext.kept).

/** "Tracker scans": run a scan, follow it, and read its findings by phase, violations first. */
export async function scansSection(
  ctx: ViewContext,
  channel: { id: string; status: string },
  technologies: DeclaredTechnology[],
  purposes: PurposeRow[],
  manage: boolean,
): Promise<HTMLElement> {
  const id = channel.id;
  const open = ctx.kept('scans', () => ({ scanId: null as string | null }));
  const { data: scans } = await answer(
    api.GET('/v1/channels/{id}/scans', { params: { path: { id }, query: { limit: 10 } } }),
  );
  const active = scans.find((s) => s.status === 'queued' || s.status === 'running');
  const shown = scans.find((s) => s.id === open.scanId) ?? scans[0] ?? null;
  const box = messageBox();
  const said = noticeAfterRedraw(ctx, 'scans').take(channel.id);
  if (said) box.ok(said);

  const runForm = form(
    'Run a tracker scan',
    [
      field(
        'Page URL',
        input('url', { type: 'url' }),
        'Empty: the home page of each of the channel’s origins',
      ),
    ],
    'Run a scan',
    async (el) => {
      const url = (el.elements.namedItem('url') as HTMLInputElement).value.trim();
      const { data } = await answer(
        api.POST('/v1/channels/{id}/scans', { params: { path: { id } }, body: url ? { url } : {} }),
      );
      open.scanId = data.id;
      ctx.refresh();
    },
  );
  const rows = scans.map((s) => [
    date(s.createdAt),
    badge(s.status),
    s.urls.length === 1 ? h('code', {}, s.urls[0]) : `${s.urls.length} pages`,
    s.summary ? String(s.summary.violations) : '—',
    s.summary ? String(s.summary.undeclared) : '—',
    s.id === shown?.id
      ? h('span', { class: 'muted' }, 'Shown below')
      : button(
          'Show',
          () => {
            open.scanId = s.id;
            ctx.refresh();
          },
          { 'aria-label': `Show the scan of ${date(s.createdAt)}` },
        ),
  ]);
  const el = h(
    'section',
    { class: 'card', 'aria-labelledby': `scans-${channel.id}` },
    h('h2', { id: `scans-${channel.id}` }, 'Tracker scans'),
    h(
      'p',
      { class: 'lead' },
      'A scan loads your pages in a browser three times, through this channel’s banner: without a choice, after reject all, and after accept all. It lists the cookies, storage keys and third-party requests each time, and flags what runs before consent.',
    ),
    box,
    manage && channel.status === 'active' && !active ? runForm : null,
    active
      ? h('p', { role: 'status' }, `A scan is ${active.status}; this page updates when it finishes.`)
      : null,
    table(['Started', 'Status', 'Pages', 'Violations', 'Undeclared', 'Findings'], rows, 'Scans'),
    shown ? scanDetail(ctx, channel.id, shown, technologies, purposes, manage, box) : null,
  );
  if (active) pollUntilDone(ctx, el, { id, scanId: active.id }, active.status);
  return el;
}

/**
 * Redraws the view once the scan leaves `status`. Polling stops when the section leaves the page
 * (a redraw builds a new section, which polls for itself) or a poll fails (signed out, offline).
 */
function pollUntilDone(
  ctx: ViewContext,
  el: HTMLElement,
  path: { id: string; scanId: string },
  status: Scan['status'],
) {
  let attached = false;
  let waits = 0;
  const check = async () => {
    if (el.isConnected) attached = true;
    else if (attached || ++waits > 15) return;
    try {
      const { data } = await answer(api.GET('/v1/channels/{id}/scans/{scanId}', { params: { path } }));
      if (data.status !== status) return ctx.refresh();
    } catch {
      return;
    }
    setTimeout(check, POLL_MS);
  };
  setTimeout(check, POLL_MS);
}

function scanDetail(
  ctx: ViewContext,
  channelId: string,
  scan: Scan,
  technologies: DeclaredTechnology[],
  purposes: PurposeRow[],
  manage: boolean,
  box: ReturnType<typeof messageBox>,
): HTMLElement {
  const heading = h('h3', {}, `Scan of ${date(scan.createdAt)}`);
  if (scan.status === 'failed') {
    return h(
      'div',
      {},
      heading,
      h('p', { class: 'message error' }, `The scan failed: ${scan.failureReason}`),
    );
  }
  if (scan.status !== 'succeeded' || !scan.summary) {
    return h('div', {}, heading, h('p', { class: 'empty' }, 'Findings appear here when the scan finishes.'));
  }
  const s = scan.summary;
  const names = new Map(technologies.map((t) => [t.id, t.name]));
  const addAsTechnology = (finding: ScanFinding, control: HTMLButtonElement) =>
    act(box, control, async () => {
      const body = technologyFor(finding, purposes);
      await api.POST('/v1/channels/{id}/technologies', { params: { path: { id: channelId } }, body });
      const purpose = body.purposeKeys.length
        ? ` for ${body.purposeKeys.join(', ')}`
        : ' with no purpose yet';
      noticeAfterRedraw(ctx, 'scans').say(
        channelId,
        `Added "${body.name}" as a technology${purpose}. Check it under Technologies.`,
      );
      ctx.refresh();
    });
  const groups = PHASES.map(([phase, title]) => {
    const inPhase = scan.findings
      .filter((f) => f.phase === phase)
      .sort((a, b) => Number(b.violation) - Number(a.violation));
    const rows = inPhase.map((f) => findingRow(f, technologies, names, manage ? addAsTechnology : null));
    const violations = inPhase.filter((f) => f.violation).length;
    return h(
      'div',
      { class: 'scan-phase' },
      h(
        'h4',
        {},
        `${title}: ${inPhase.length} found${violations ? `, ${violations} violation${violations > 1 ? 's' : ''}` : ''}`,
      ),
      table(
        ['Verdict', 'Kind', 'Name', 'Where', 'Declared as', 'Known as', 'Action'],
        rows,
        `Findings ${title.toLowerCase()}`,
      ),
    );
  });
  return h(
    'div',
    {},
    heading,
    h(
      'p',
      {},
      `${counted(s.violations, 'violation')}, ${s.undeclared} undeclared; ${counted(s.cookies, 'cookie')}, ${counted(s.storage, 'storage key')}, ${counted(s.requests, 'third-party request')} on ${scan.urls.join(', ')}. The banner applied ${scan.regime ?? 'no'} regime${scan.regime === 'opt-in' ? ': anything optional before consent or after reject is a violation' : ''}.`,
    ),
    scan.warnings.length
      ? h(
          'div',
          { class: 'message warning' },
          h('strong', {}, 'What this scan could not see'),
          h('ul', {}, ...scan.warnings.map((w) => h('li', {}, w))),
        )
      : null,
    ...groups,
  );
}

/**
 * A finding's row: its verdict, what and where it is, what declares it (or that nothing does), and,
 * with `add` (channels:manage), a button that declares an undeclared one as a technology.
 */
function findingRow(
  f: ScanFinding,
  technologies: DeclaredTechnology[],
  names: Map<string, string>,
  add: ((finding: ScanFinding, control: HTMLButtonElement) => Promise<void>) | null,
): (Node | string)[] {
  const declaredNow = f.technologyId === null ? declaringTechnology(f, technologies) : null;
  return [
    f.violation ? badge('violation') : badge('ok'),
    kindOf(f),
    h('code', {}, f.name),
    f.thirdParty ? `Third party (${f.domain})` : `First party (${f.domain})`,
    f.technologyId
      ? `${names.get(f.technologyId) ?? 'A deleted technology'}${f.purposeKey ? ` (${f.purposeKey})` : ''}`
      : isOwn(f)
        ? 'This service’s banner'
        : declaredNow
          ? `Undeclared when scanned; now ${declaredNow.name}`
          : 'Undeclared',
    f.classification ? `${f.classification.category} · ${f.classification.vendor}` : '—',
    add && f.technologyId === null && !declaredNow && declarable(f)
      ? h(
          'button',
          {
            type: 'button',
            'aria-label': `Add ${f.name} as a technology`,
            onclick: (event: Event) => void add(f, event.currentTarget as HTMLButtonElement),
          },
          'Add as technology',
        )
      : '',
  ];
}

/** The banner's own cookies and requests, which the scan classifies as this service's (never declared). */
const isOwn = (finding: ScanFinding) => finding.classification?.vendor === OWN_VENDOR;

/** "1 storage key", "2 storage keys". */
const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * What a finding is: a request says its resource type (script, fetch, …), which tells apart two
 * requests to one host; the service's own requests (its SDK, its config) say so, so they do not
 * read as a third party to act on.
 */
function kindOf(finding: ScanFinding): string {
  if (finding.kind !== 'request') return KIND_NAMES[finding.kind];
  const type = finding.detail ? ` (${finding.detail})` : '';
  return isOwn(finding) ? `This service’s request${type}` : `Request${type}`;
}

/** A finding the technology API can declare: requests by host (with port), cookies and storage keys by name. */
function declarable(finding: ScanFinding): boolean {
  if (isOwn(finding)) return false;
  return finding.kind !== 'request' || /^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(finding.name);
}

/**
 * The technology a click declares: named after its vendor when the cookie database knows it, for the
 * channel's purpose of the same category when there is one (a necessary category goes to a required
 * purpose), else with no purpose for the user to choose.
 */
function technologyFor(finding: ScanFinding, purposes: PurposeRow[]) {
  const vendor = finding.classification?.vendor ?? null;
  const name = vendor ? `${vendor} (${finding.name})` : finding.name;
  const purposeKey = purposeFor(finding.classification?.category ?? null, purposes);
  return {
    name: name.slice(0, 200),
    ...(vendor ? { vendor } : {}),
    purposeKeys: purposeKey ? [purposeKey] : [],
    ...(finding.kind === 'request'
      ? { hosts: [finding.name] }
      : {
          cookies: [{ name: finding.name, ...(finding.kind === 'cookie' ? { domain: finding.domain } : {}) }],
        }),
  };
}

/** Open Cookie Database categories and the purpose keys that usually mean the same. */
const CATEGORY_PURPOSES: Record<string, string[]> = {
  analytics: ['analytics', 'statistics', 'measurement', 'performance'],
  marketing: ['marketing', 'advertising', 'ads', 'targeting'],
  personalization: ['personalization', 'personalisation', 'preferences', 'functional'],
};
function purposeFor(category: string | null, purposes: PurposeRow[]): string | null {
  if (!category) return null;
  const active = purposes.filter((p) => p.status === 'active');
  if (isNecessaryCategory(category)) return active.find((p) => p.required)?.key ?? null;
  const wanted = category.toLowerCase();
  const keys = CATEGORY_PURPOSES[wanted] ?? [wanted];
  return active.find((p) => keys.includes(p.key))?.key ?? null;
}

/** A technology declared since the scan that now covers the finding (the scan's own matching rules). */
function declaringTechnology(finding: ScanFinding, technologies: DeclaredTechnology[]) {
  return (
    technologies.find((t) =>
      finding.kind === 'request'
        ? t.hosts.some((host) => hostMatches(host, finding.name))
        : t.cookies.some((c) => cookieNameMatches(c.name, finding.name)),
    ) ?? null
  );
}
