import type { Instance } from '../consent.ts';
import { h } from '../dom.ts';
import { readConsent } from '../storage.ts';
import type { ConsentApi } from '../types.ts';
import { whenBody } from '../when.ts';
import { storedSummary } from './describe.ts';
import { blockedElements } from './elements.ts';
import { clearOverride, keepOverride, readOverride, SUGGESTED_REGIONS } from './override.ts';
import { PANEL_CSS } from './styles.ts';
import { type TimelineEvent, watchSdk } from './timeline.ts';

/** One instance's panel: kept on the instance (its own state record), so two SDKs have two. */
interface Panel {
  show(): void;
}
type Debugged = Instance & { debugPanel?: Panel };

const clock = (at: number) => {
  const d = new Date(at);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
};

const fill = (el: Element, ...children: (Node | string)[]) => {
  el.textContent = '';
  el.append(...children);
};

const state = (ok: boolean, yes: string, no: string) =>
  h('span', { class: ok ? 's ok' : 's no' }, ok ? yes : no);

/** Opens `i`'s panel: the one it has, or a new one that starts listening to the instance. */
export function openPanel(i: Debugged): void {
  i.debugPanel ||= createPanel(i);
  i.debugPanel.show();
}

function createPanel(i: Debugged): Panel {
  const events: TimelineEvent[] = [];
  const api = () =>
    (window as unknown as { __consentServiceSites?: Record<string, ConsentApi> }).__consentServiceSites?.[
      i.siteKey
    ];

  const host = h('div', { 'data-consent-debug': true });
  const root = host.attachShadow({ mode: 'open' });
  const stored = h('div', { 'data-debug': 'stored' });
  const region = h('div', { 'data-debug': 'region' });
  const elements = h('ul', { 'data-debug': 'elements' });
  const timeline = h('ol', { 'data-debug': 'timeline' });
  const message = h('p', { class: 'err', role: 'status' });
  const input = h('input', {
    id: 'csd-region',
    list: 'csd-regions',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'csd-region-hint',
  }) as HTMLInputElement;
  const actionButton = (action: string, label: string, alt = false) =>
    h('button', { type: 'button', class: alt ? 'alt' : '', 'data-debug-action': action }, label);

  const panel = h(
    'section',
    {
      class: 'p',
      role: 'dialog',
      'aria-modal': 'false',
      'aria-labelledby': 'csd-title',
      tabindex: '-1',
      lang: 'en',
    },
    h('h2', { id: 'csd-title' }, 'Consent developer panel'),
    h('p', { class: 'k' }, `Test channel ${i.siteKey}. Live channels never show this panel.`),
    h(
      'div',
      { class: 'row' },
      actionButton('accept-all', 'Accept all'),
      actionButton('reject-all', 'Reject all'),
      actionButton('reset', 'Reset', true),
      actionButton('close', 'Close panel', true),
    ),
    h('h3', {}, 'Stored choice'),
    stored,
    h('h3', {}, 'Region and regime'),
    region,
    h('label', { for: 'csd-region' }, 'Region to test in this tab'),
    h(
      'p',
      { class: 'k', id: 'csd-region-hint' },
      'An ISO 3166 code (DE, US-CA). The page reloads and the service resolves the regime for it; the panel opens on every page of this tab until you go back to the real region.',
    ),
    input,
    h(
      'datalist',
      { id: 'csd-regions' },
      ...SUGGESTED_REGIONS.map(([code, name]) => h('option', { value: code }, name)),
    ),
    h(
      'div',
      { class: 'row' },
      actionButton('override', 'Use this region'),
      actionButton('clear-override', 'Back to the real region', true),
    ),
    message,
    h('h3', {}, 'Blocked elements'),
    elements,
    h('h3', { id: 'csd-timeline' }, 'Timeline'),
    // Focusable: a keyboard scrolls it when it overflows.
    h('div', { class: 'log', role: 'log', 'aria-labelledby': 'csd-timeline', tabindex: '0' }, timeline),
  );
  root.append(h('style', {}, PANEL_CSS), panel);

  function renderStored() {
    const live = i.live;
    const summary = storedSummary(i.kept || readConsent(i.siteKey), live ? live.config.purposes : null);
    const rows: Node[] = [h('dt', {}, 'Decision'), h('dd', { 'data-debug': 'outcome' }, summary.outcome)];
    if (summary.purposes.length)
      rows.push(
        h('dt', {}, 'Purposes'),
        h(
          'dd',
          {},
          h(
            'ul',
            {},
            ...summary.purposes.map(([key, decision]) =>
              h(
                'li',
                { 'data-purpose': key },
                `${key}: `,
                state(decision === 'granted', 'granted', 'denied'),
              ),
            ),
          ),
        ),
      );
    if (summary.when)
      rows.push(
        h('dt', {}, 'When'),
        h('dd', {}, h('time', { datetime: summary.when }, new Date(summary.when).toLocaleString())),
      );
    if (summary.configVersion !== null)
      rows.push(h('dt', {}, 'Config version'), h('dd', {}, String(summary.configVersion)));
    if (summary.byGpc) rows.push(h('dt', {}, 'Made by'), h('dd', {}, 'the Global Privacy Control signal'));
    if (summary.subjectId) rows.push(h('dt', {}, 'Subject id'), h('dd', {}, summary.subjectId));
    fill(stored, h('dl', {}, ...rows));
  }

  function renderRegion() {
    const live = i.live;
    const override = readOverride(i.siteKey);
    const rows: Node[] = [];
    if (!live)
      rows.push(
        h('dt', {}, 'Status'),
        h(
          'dd',
          {},
          'Not started: no site config yet, or this page’s origin is not registered (see the console).',
        ),
      );
    else {
      const { region: resolved } = live.config;
      rows.push(
        h('dt', {}, 'Region'),
        h('dd', { 'data-debug': 'region-code' }, resolved?.code ?? 'unknown'),
        h('dt', {}, 'Resolved from'),
        h('dd', {}, resolved?.source ?? 'unknown'),
        h('dt', {}, 'Regime'),
        h('dd', { 'data-debug': 'regime' }, live.policy.regime),
      );
    }
    rows.push(h('dt', {}, 'Override'), h('dd', { 'data-debug': 'override' }, override || 'none'));
    fill(region, h('dl', {}, ...rows));
  }

  function renderElements() {
    const found = blockedElements(document);
    if (!found.length) return fill(elements, h('li', {}, 'None on this page.'));
    fill(
      elements,
      ...found.map(({ what, purposes, ran, el }) => {
        const frame = el.tagName === 'IFRAME';
        return h(
          'li',
          { 'data-state': ran ? 'ran' : 'blocked' },
          `${what} (${purposes}): `,
          state(ran, frame ? 'loaded' : 'ran', frame ? 'not loaded' : 'not run'),
        );
      }),
    );
  }

  function renderTimeline() {
    fill(
      timeline,
      ...events.map((event) =>
        h(
          'li',
          { 'data-kind': event.kind },
          h('time', {}, clock(event.at)),
          h('span', { class: 's' }, event.kind),
          ` ${event.text}`,
        ),
      ),
    );
  }

  // Drawn after the SDK's task: a decision's events come mid-way through it.
  let queued = false;
  const render = () => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      renderStored();
      renderRegion();
      renderElements();
      renderTimeline();
    }, 0);
  };

  watchSdk(i, (event) => {
    events.push(event);
    render();
  });
  new MutationObserver(render).observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ['data-consent-activated', 'src', 'data-src'],
  });
  if (!i.live) i.whenReady.push(render);

  let returnFocus: HTMLElement | null = null;
  const hide = () => {
    const hadFocus = host.contains(document.activeElement) || root.activeElement !== null;
    host.remove();
    if (hadFocus && returnFocus?.isConnected) returnFocus.focus();
  };
  panel.addEventListener('focusin', (event) => {
    const from = (event as FocusEvent).relatedTarget;
    if (from instanceof HTMLElement && !root.contains(from)) returnFocus = from;
  });
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') hide();
    if (event.key === 'Enter' && event.target === input) setOverride();
  });

  function setOverride() {
    const refused = keepOverride(i.siteKey, input.value);
    if (refused) return fill(message, refused);
    location.reload();
  }

  panel.addEventListener('click', (event) => {
    const action = (event.target as Element)
      .closest('[data-debug-action]')
      ?.getAttribute('data-debug-action');
    if (action === 'accept-all') api()?.acceptAll();
    else if (action === 'reject-all') api()?.rejectAll();
    else if (action === 'reset') api()?.reset();
    else if (action === 'close') hide();
    else if (action === 'override') setOverride();
    else if (action === 'clear-override') {
      clearOverride(i.siteKey);
      location.reload();
    }
  });

  return {
    show() {
      whenBody(() => {
        if (!host.isConnected) document.body.append(host);
        render();
      });
    },
  };
}
