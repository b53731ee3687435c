import { ApiError, answer, api, type RequestBody, type Schemas } from '../api.ts';
import { configChanges } from '../config-changes.ts';
import { button, date, h, input, select, table } from '../dom.ts';
import { badge, messageBox, noticeAfterRedraw, section, type ViewContext } from '../ui.ts';

/** A channel's ordered region rule (docs/regions.md). */
export type RegionRule = Schemas['Channel']['regionRules'][number];
/** Which regime applies to a visitor, by the first rule naming their region. */
export type Regime = RegionRule['regime'];

/** The channel fields this file reads (the Channel resource has more). */
export type RegionChannel = Pick<
  Schemas['Channel'],
  'id' | 'name' | 'environment' | 'siteKey' | 'status' | 'regionRules' | 'consentMaxAgeDays'
>;

const REGIMES: [Regime, string][] = [
  ['opt-in', 'Opt-in'],
  ['opt-out', 'Opt-out'],
  ['notice-only', 'Notice only'],
];

/** What a visitor under each regime sees, in the words of the SDK's behaviour. */
const REGIME_EFFECT: Record<Regime, string> = {
  'opt-in':
    'The banner asks first: nothing optional runs until the visitor accepts (required purposes always run).',
  'opt-out':
    'No banner blocks the page: optional purposes run until the visitor opts out, through the "Your Privacy Choices" link. A Global Privacy Control signal opts out of the sale, sharing and targeted advertising purposes.',
  'notice-only': 'An informational notice: optional purposes run, and no decision is asked for.',
};

const CODES_HINT = 'Comma-separated: FR, US-CA, EEA, EU, or * for every visitor';

// A notice said after a redraw (saving redraws the whole view), and where focus goes back to.

/** Focus `el` once the view holding it is on the page (views are built before they are attached). */
function focusWhenShown(el: HTMLElement) {
  let tries = 0;
  const attempt = () => {
    if (el.isConnected) el.focus();
    else if (++tries < 50) setTimeout(attempt, 20);
  };
  setTimeout(attempt, 0);
}

/** "Region rules": the ordered rules and consentMaxAgeDays, and a form to edit them (channels:manage). */
export function regionRulesSection(ctx: ViewContext, channel: RegionChannel, manage: boolean): HTMLElement {
  const heading = h('h2', { id: `regions-${channel.id}`, tabindex: -1 }, 'Region rules');
  const notice = messageBox();
  const said = noticeAfterRedraw(ctx, 'regions').take(channel.id);
  if (said) {
    notice.ok(said);
    focusWhenShown(heading);
  }
  const rows = channel.regionRules.map((rule, i) => [
    String(i + 1),
    h('code', {}, rule.regions.join(', ')),
    rule.regime,
  ]);
  return h(
    'section',
    { class: 'card' },
    heading,
    notice,
    h(
      'p',
      { class: 'lead' },
      'The first rule naming the visitor’s region decides their regime; a visitor no rule names gets opt-in. A country also covers its subdivisions.',
    ),
    rows.length
      ? table(['Order', 'Regions', 'Regime'], rows, 'Region rules')
      : h('p', { class: 'empty' }, 'No region rules: every visitor gets opt-in.'),
    h(
      'p',
      {},
      `A stored decision is asked again after ${channel.consentMaxAgeDays} days (consentMaxAgeDays).`,
    ),
    manage ? rulesForm(ctx, channel, notice) : null,
  );
}

interface Row {
  regions: string;
  regime: Regime;
}

function rulesForm(ctx: ViewContext, channel: RegionChannel, notice: HTMLElement): HTMLElement {
  const rows: Row[] = channel.regionRules.map((r) => ({ regions: r.regions.join(', '), regime: r.regime }));
  const list = h('ol', { class: 'rules' });
  const said = h('p', { role: 'status', class: 'visually-hidden' });
  const formError = h('p', { class: 'field-error', id: `rules-${channel.id}-error`, hidden: true });
  const days = maxAgeField(channel);
  const box = messageBox();
  const submit = h('button', { type: 'submit' }, 'Save region rules');
  const add = button('Add rule', () => {
    rows.push({ regions: '', regime: 'opt-in' });
    draw();
    announce(`Rule ${rows.length} added.`);
    list.querySelectorAll<HTMLInputElement>('input[name="regions"]')[rows.length - 1]?.focus();
  });

  const announce = (text: string) => {
    said.textContent = text;
  };

  /** Redraws the rows from `rows`; errors are cleared (they belonged to the rows as they were). */
  function draw() {
    list.replaceChildren(
      ...rows.map((row, i) =>
        ruleItem(channel.id, row, i, rows.length, {
          move(to, label) {
            const n = i + 1;
            const [moved] = rows.splice(i, 1);
            rows.splice(to, 0, moved);
            draw();
            announce(`Rule ${n} moved ${label}: it is now rule ${to + 1}.`);
            // Focus follows the rule: the same button, or the other move button once at the end.
            const [up, down] = Array.from(list.children[to].querySelectorAll<HTMLButtonElement>('button'));
            const same = label === 'up' ? up : down;
            (same.disabled ? (label === 'up' ? down : up) : same).focus();
          },
          remove() {
            rows.splice(i, 1);
            draw();
            announce(`Rule ${i + 1} removed.`);
            const next = list.children[Math.min(i, rows.length - 1)];
            (next?.querySelector<HTMLInputElement>('input') ?? add).focus();
          },
        }),
      ),
    );
    list.hidden = rows.length === 0;
  }
  draw();

  const el = h(
    'form',
    { 'aria-label': 'Edit region rules', class: 'stack rules-form', novalidate: true },
    h('h3', {}, 'Edit region rules'),
    list,
    h('div', { class: 'row' }, add),
    formError,
    days.field,
    submit,
    box,
    said,
  );
  const errors = ruleErrors({
    form: el,
    channelId: channel.id,
    list,
    formError,
    days,
    ruleCount: () => rows.length,
    add,
  });
  el.addEventListener('submit', (event) => {
    event.preventDefault();
    const { regionRules, body } = rulesBody(rows, days.input.value);
    submit.disabled = true;
    box.hidden = true;
    notice.hidden = true;
    errors.clear();
    answer(api.PATCH('/v1/channels/{id}', { params: { path: { id: channel.id } }, body }))
      .then(({ data }) => {
        noticeAfterRedraw(ctx, 'regions').say(
          channel.id,
          `Region rules saved. The channel is at config version ${data.configVersion}.`,
        );
        ctx.refresh();
      })
      .catch((error: unknown) => {
        const found = error instanceof ApiError && Array.isArray(error.body.errors) ? error.body.errors : [];
        const first = errors.show(found as { path: string; message: string }[], regionRules);
        box.show(error);
        if (found.length) {
          box.textContent = `The region rules were not saved: ${found.length === 1 ? 'one problem is' : `${found.length} problems are`} shown next to ${found.length === 1 ? 'its field' : 'their fields'}.`;
        }
        first?.focus();
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return el;
}

/** The days after which a stored decision is asked again: its input, its error line and its field. */
interface MaxAgeField {
  input: HTMLInputElement;
  error: HTMLElement;
  field: HTMLElement;
}

function maxAgeField(channel: RegionChannel): MaxAgeField {
  const maxAge = input('consentMaxAgeDays', {
    type: 'number',
    inputmode: 'numeric',
    min: 30,
    max: 395,
    step: 1,
    id: `max-age-${channel.id}`,
    'aria-describedby': `max-age-${channel.id}-hint`,
  });
  maxAge.value = String(channel.consentMaxAgeDays);
  const maxAgeError = h('p', { class: 'field-error', id: `max-age-${channel.id}-error`, hidden: true });
  const maxAgeHint = h('small', { id: `max-age-${channel.id}-hint` }, 'Between 30 and 395 days.');
  const field = h(
    'div',
    { class: 'field' },
    h('label', { for: maxAge.id }, 'Ask again after (days)'),
    maxAge,
    maxAgeHint,
    maxAgeError,
  );
  return { input: maxAge, error: maxAgeError, field };
}

/** The PATCH body of the form's rows and days, and the rules as sent (errors point into them). */
function rulesBody(rows: Row[], days: string) {
  const regionRules: RegionRule[] = rows.map((row) => ({
    regions: row.regions
      .split(',')
      .map((code) => code.trim().toUpperCase())
      .filter(Boolean),
    regime: row.regime,
  }));
  const trimmed = days.trim();
  const body: RequestBody<'/v1/channels/{id}', 'patch'> = {
    regionRules,
    // Anything but digits goes as typed, so the API's 422 says what is wrong with it at the field.
    consentMaxAgeDays: /^\d+$/.test(trimmed) ? Number(trimmed) : (trimmed as unknown as number),
  };
  return { regionRules, body };
}

/** One rule of the form: its regions and regime (kept in `row` as typed), and its move and remove buttons. */
function ruleItem(
  channelId: string,
  row: Row,
  i: number,
  count: number,
  on: { move(to: number, label: 'up' | 'down'): void; remove(): void },
): HTMLElement {
  const n = i + 1;
  const base = `rule-${channelId}-${i}`;
  const regions = input('regions', {
    id: `${base}-regions`,
    spellcheck: 'false',
    autocapitalize: 'characters',
    'aria-describedby': `${base}-regions-hint`,
  });
  regions.value = row.regions;
  regions.addEventListener('input', () => {
    row.regions = regions.value;
  });
  const regime = select('regime', REGIMES, { id: `${base}-regime` });
  regime.value = row.regime;
  regime.addEventListener('change', () => {
    row.regime = regime.value as Regime;
  });
  return h(
    'li',
    { class: 'rule' },
    h(
      'fieldset',
      {},
      h('legend', {}, `Rule ${n}`),
      h(
        'div',
        { class: 'rule-fields' },
        h(
          'div',
          { class: 'field' },
          h('label', { for: regions.id }, h('span', { class: 'visually-hidden' }, `Rule ${n} `), 'Regions'),
          regions,
          h('small', { id: `${base}-regions-hint` }, CODES_HINT),
          h('p', { class: 'field-error', id: `${base}-regions-error`, hidden: true }),
        ),
        h(
          'div',
          { class: 'field' },
          h('label', { for: regime.id }, h('span', { class: 'visually-hidden' }, `Rule ${n} `), 'Regime'),
          regime,
          h('p', { class: 'field-error', id: `${base}-regime-error`, hidden: true }),
        ),
      ),
      h(
        'div',
        { class: 'row' },
        button('Move up', () => on.move(i - 1, 'up'), {
          'aria-label': `Move rule ${n} up`,
          disabled: i === 0,
        }),
        button('Move down', () => on.move(i + 1, 'down'), {
          'aria-label': `Move rule ${n} down`,
          disabled: i === count - 1,
        }),
        button('Remove', () => on.remove(), { class: 'danger', 'aria-label': `Remove rule ${n}` }),
      ),
    ),
  );
}

/** What the rules form's errors are shown in and around. */
interface RuleErrorParts {
  form: HTMLElement;
  channelId: string;
  list: HTMLElement;
  /** Under the rules, for what names no field. */
  formError: HTMLElement;
  days: MaxAgeField;
  ruleCount: () => number;
  /** Focused when only the form-wide line has an error. */
  add: HTMLElement;
}

/** Shows the API's errors next to the form's fields, and clears them before the next save. */
function ruleErrors({ form, channelId, list, formError, days, ruleCount, add }: RuleErrorParts) {
  /** Marks a control invalid with the message under it (and in its description, so it is read). */
  function markInvalid(control: HTMLElement | null, errorId: string, message: string) {
    const holder = form.querySelector<HTMLElement>(`[id="${errorId}"]`) ?? formError;
    holder.hidden = false;
    holder.textContent = holder.textContent ? `${holder.textContent} ${message}` : message;
    if (!control) return;
    control.setAttribute('aria-invalid', 'true');
    const described = (control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    if (!described.includes(holder.id)) {
      control.setAttribute('aria-describedby', [...described, holder.id].join(' '));
    }
  }

  function clear() {
    for (const el of [...list.querySelectorAll<HTMLElement>('.field-error'), formError, days.error]) {
      el.hidden = true;
      el.textContent = '';
    }
    for (const control of [...list.querySelectorAll<HTMLElement>('[aria-invalid]'), days.input]) {
      control.removeAttribute('aria-invalid');
      const ids = (control.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .filter((id) => id && !id.endsWith('-error'));
      if (ids.length) control.setAttribute('aria-describedby', ids.join(' '));
      else control.removeAttribute('aria-describedby');
    }
  }

  /**
   * The API's `errors[]` next to their fields: `/regionRules/1/regions/0` → rule 2's regions,
   * `/regionRules/1/regime` → its regime, `/consentMaxAgeDays` → the days; anything else → the form.
   * Returns the first control marked, for focus.
   */
  function show(errors: { path: string; message: string }[], sent: RegionRule[]): HTMLElement | null {
    let first: HTMLElement | null = null;
    for (const { path, message } of errors) {
      let control: HTMLElement | null = null;
      let errorId = formError.id;
      let text = message;
      const rule = /^\/regionRules\/(\d+)(?:\/(regions|regime)(?:\/(\d+))?)?$/.exec(path);
      if (rule && Number(rule[1]) < ruleCount()) {
        const base = `rule-${channelId}-${rule[1]}`;
        const part = rule[2] === 'regime' ? 'regime' : 'regions';
        control = form.querySelector<HTMLElement>(`[id="${base}-${part}"]`);
        errorId = `${base}-${part}-error`;
        const code = rule[3] === undefined ? undefined : sent[Number(rule[1])]?.regions[Number(rule[3])];
        text = readable(message, code);
      } else if (path === '/consentMaxAgeDays') {
        control = days.input;
        errorId = days.error.id;
        text = /^must be (>=|<=|integer|number)/.test(message)
          ? 'Enter a whole number of days from 30 to 395.'
          : message;
      } else if (path.startsWith('/regionRules')) {
        text = `Region rules: ${message}`;
      } else {
        text = `${path}: ${message}`;
      }
      markInvalid(control, errorId, text);
      first ??= control;
    }
    return first ?? (formError.hidden ? null : add);
  }

  return { clear, show };
}

/**
 * The schema's wording in people's words: its pattern check says "must match pattern …" of a code
 * that is not even shaped like one (USA, EUR); the service's own check names the code already.
 */
function readable(message: string, code: string | undefined): string {
  if (message.startsWith('must match pattern')) {
    return `"${code ?? ''}" is not a region code: use a country (FR), a subdivision (US-CA), EEA, EU or *.`;
  }
  if (/fewer than 1 item/.test(message)) return 'Name at least one region.';
  return code !== undefined && !message.includes(`"${code}"`) ? `"${code}": ${message}` : message;
}

const SHOWN_VERSIONS = 20;

/**
 * "Config versions": newest first, each with what it changed against the version before it (one
 * more is fetched so the oldest shown has its predecessor), and the material changes that ask
 * visitors again.
 */
export async function configVersionsSection(channel: RegionChannel): Promise<HTMLElement> {
  const { data } = await answer(
    api.GET('/v1/channels/{id}/config-versions', {
      params: { path: { id: channel.id }, query: { limit: SHOWN_VERSIONS + 1 } },
    }),
  );
  const rows = data
    .slice(0, SHOWN_VERSIONS)
    .map((v, i) => [
      String(v.version),
      date(v.createdAt),
      h(
        'ul',
        { class: 'changes' },
        ...(data[i + 1] || v.version === 1
          ? configChanges(data[i + 1]?.config, v.config)
          : ['The version before it is not listed']
        ).map((c) => h('li', {}, c)),
      ),
      v.reconsent ? badge('asks again') : h('span', { class: 'muted' }, 'no'),
    ]);
  return section(
    'Config versions',
    h(
      'p',
      { class: 'lead' },
      'A version that asks again is a material change (a purpose added, a purpose’s basis or text, the policy version, a region’s regime): visitors who answered before it are asked again.',
    ),
    table(['Version', 'Published', 'What changed', 'Asks visitors again'], rows, 'Config versions'),
  );
}

type PreviewConfig = Schemas['SiteConfig'];

/**
 * "Preview as a visitor from…": the public config as a visitor from that region gets it
 * (`?region=`, honoured on test channels only), and what the banner does with it.
 */
export function previewSection(channel: RegionChannel): HTMLElement {
  const title = 'Preview as a visitor from…';
  if (channel.environment !== 'test') {
    return section(
      title,
      h(
        'p',
        {},
        'Previews need a test channel: a live channel ignores a declared region and answers for where the visitor really is. Switch to Test data and open a test channel.',
      ),
    );
  }
  if (channel.status !== 'active') {
    return section(
      title,
      h('p', {}, 'This channel is archived: it answers no public calls, so there is nothing to preview.'),
    );
  }
  const code = input('region', {
    id: `preview-${channel.id}`,
    spellcheck: 'false',
    autocapitalize: 'characters',
    'aria-describedby': `preview-${channel.id}-hint`,
  });
  const codeError = h('p', { class: 'field-error', id: `preview-${channel.id}-error`, hidden: true });
  const box = messageBox();
  const result = h('div', { class: 'preview', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Preview');
  const form = h(
    'form',
    { 'aria-label': 'Preview as a visitor', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: code.id }, 'Visitor’s region code'),
      code,
      h('small', { id: `preview-${channel.id}-hint` }, 'A country or subdivision, e.g. FR, US-CA, BR'),
      codeError,
    ),
    submit,
    box,
  );
  const clearError = () => {
    codeError.hidden = true;
    codeError.textContent = '';
    code.removeAttribute('aria-invalid');
    code.setAttribute('aria-describedby', `preview-${channel.id}-hint`);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const region = code.value.trim().toUpperCase();
    submit.disabled = true;
    box.hidden = true;
    clearError();
    answer(
      api.GET('/v1/public/sites/{siteKey}/config', {
        params: { path: { siteKey: channel.siteKey }, query: { region } },
      }),
    )
      .then(({ data }) => result.replaceChildren(previewOf(data)))
      .catch((error: unknown) => {
        result.replaceChildren();
        const errors = error instanceof ApiError && Array.isArray(error.body.errors) ? error.body.errors : [];
        const field = (errors as { path: string; message: string }[]).find((e) => e.path === 'query:/region');
        if (field) {
          codeError.hidden = false;
          codeError.textContent = `"${region}" ${field.message}`;
          code.setAttribute('aria-invalid', 'true');
          code.setAttribute('aria-describedby', `preview-${channel.id}-hint ${codeError.id}`);
          box.show(
            new ApiError(
              422,
              'validation_failed',
              'There is no preview for that region code: see the field.',
            ),
          );
          code.focus();
        } else box.show(error);
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return section(
    title,
    h(
      'p',
      { class: 'lead' },
      'What a visitor from that region gets from this test channel: the service’s answer to the banner, read as that visitor.',
    ),
    form,
    result,
  );
}

function previewOf(config: PreviewConfig): HTMLElement {
  const names = (list: PreviewConfig['purposes']) => list.map((p) => p.name).join(', ') || 'none';
  const runsByDefault =
    config.regime === 'opt-in'
      ? `Only the required purposes: ${names(config.purposes.filter((p) => p.required))}`
      : `Every purpose: ${names(config.purposes)}`;
  const item = (term: string, ...detail: (Node | string)[]) => [h('dt', {}, term), h('dd', {}, ...detail)];
  return h(
    'div',
    { class: `card preview-result regime-${config.regime}` },
    h('h3', {}, `A visitor from ${config.region.code ?? 'an unknown region'}`),
    h(
      'dl',
      { class: 'facts' },
      ...item('Region', h('code', {}, config.region.code ?? 'unknown'), ` (${config.region.source})`),
      ...item('Regime', badge(config.regime)),
      ...item('What the banner does', REGIME_EFFECT[config.regime]),
      ...item('Runs before any choice', runsByDefault),
      ...item(
        'Asked again',
        `when their decision predates config version ${config.consentRequiredSince} or is older than ${config.consentMaxAgeDays} days`,
      ),
      ...item('Config version', String(config.configVersion)),
    ),
  );
}
