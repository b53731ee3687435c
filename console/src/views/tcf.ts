import { ApiError, call, get } from '../api.ts';
import { button, h, input } from '../dom.ts';
import { messageBox, type ViewContext } from '../ui.ts';
import { layersPreview } from './tcf-preview.ts';
import {
  type Names,
  namesOf,
  noListYet,
  type Vendor,
  type VendorList,
  vendorFacts,
  vendorPicker,
} from './tcf-vendors.ts';

/** The channel's `tcf` field: null until the channel runs as an IAB TCF CMP. */
export interface ChannelTcf {
  cmpId: number;
  cmpVersion: number;
  vendorIds: number[];
  publisherCountryCode: string;
  purposeOneTreatment: boolean;
}

export interface TcfChannel {
  id: string;
  tcf?: ChannelTcf | null;
}

const GUIDE = 'the guide "Run as an IAB TCF CMP" (docs/guides/tcf.md)';

// Saving redraws the whole view: the notice is said after the redraw, with focus on the heading.
let pendingNotice: { channelId: string; text: string } | null = null;

/** A vendor the channel names that the newest list does not have: shown, so it can be removed. */
const missingVendor = (id: number): Vendor => ({
  id,
  name: `Vendor ${id}`,
  purposes: [],
  legIntPurposes: [],
  flexiblePurposes: [],
  specialPurposes: [],
  features: [],
  specialFeatures: [],
  deletedDate: 'not in the newest list',
});

/**
 * "IAB TCF": the channel's CMP id and version, publisher country, purpose one treatment and
 * vendors (picked from the service's copy of IAB's vendor list), saved with PATCH; then a preview
 * of what the two TCF layers will list.
 */
export async function tcfSections(
  ctx: ViewContext,
  channel: TcfChannel,
  manage: boolean,
  ownPurposes: string[],
): Promise<HTMLElement[]> {
  const heading = h('h2', { id: `tcf-${channel.id}`, tabindex: -1 }, 'IAB TCF');
  const notice = messageBox();
  if (pendingNotice?.channelId === channel.id) {
    notice.ok(pendingNotice.text);
    pendingNotice = null;
    setTimeout(() => heading.isConnected && heading.focus(), 0);
  }
  const intro = h(
    'p',
    { class: 'lead' },
    'Run this channel as an IAB Transparency and Consent Framework CMP: visitors in opt-in regions get the two TCF layers, and ad tech reads their TC string. Use the CMP id IAB Europe registered for you; see ',
    GUIDE,
    '.',
  );
  const tcf = channel.tcf ?? null;
  let list: VendorList;
  try {
    list = (await get<VendorList>('/v1/tcf/vendor-list')).data;
  } catch (error) {
    // No list yet is a state of the service, not a failure of this page: said plainly, with what to do.
    const box = messageBox();
    if (error instanceof ApiError && error.status === 409) {
      box.hidden = false;
      box.className = 'message warning';
      box.setAttribute('role', 'status');
      box.textContent = noListYet(error).detail;
    } else box.show(error);
    return [h('section', { class: 'card' }, heading, notice, intro, settingsFacts(tcf), box)];
  }
  const names = namesOf(list);
  const byId = new Map(list.vendors.map((v) => [v.id, v]));
  const chosen = (tcf?.vendorIds ?? []).map((id) => byId.get(id) ?? missingVendor(id));
  const preview = layersPreview(chosen, names, ownPurposes);
  const listFacts = h(
    'p',
    {},
    `IAB vendor list version ${list.vendorListVersion} (policy version ${list.tcfPolicyVersion}), updated ${list.lastUpdated.slice(0, 10)}: ${list.vendors.filter((v) => !v.deletedDate).length} vendors.`,
  );
  const body = manage
    ? settingsForm(ctx, channel, chosen, names, preview.redraw)
    : h('div', {}, settingsFacts(tcf), chosenFacts(chosen, names));
  return [h('section', { class: 'card' }, heading, notice, intro, listFacts, body), preview.el];
}

/** The saved settings, read-only (members without channels:manage, or no vendor list yet). */
function settingsFacts(tcf: ChannelTcf | null): HTMLElement {
  if (!tcf) return h('p', {}, 'This channel does not run as a TCF CMP.');
  const item = (term: string, detail: string) => [h('dt', {}, term), h('dd', {}, detail)];
  return h(
    'dl',
    { class: 'facts' },
    ...item('CMP id', String(tcf.cmpId)),
    ...item('CMP version', String(tcf.cmpVersion)),
    ...item('Publisher country', tcf.publisherCountryCode),
    ...item('Purpose one treatment', tcf.purposeOneTreatment ? 'yes' : 'no'),
    ...item('Vendors', String(tcf.vendorIds.length)),
  );
}

function chosenFacts(chosen: Vendor[], names: Names): HTMLElement {
  if (chosen.length === 0) return h('p', { class: 'empty' }, 'No vendors chosen.');
  return h(
    'ul',
    { class: 'tcf-vendors', 'aria-label': 'Chosen vendors' },
    ...chosen.map((v) =>
      h(
        'li',
        { class: 'card tcf-vendor' },
        h('h4', {}, `${v.name} `, h('span', { class: 'muted' }, `(vendor ${v.id})`)),
        vendorFacts(v, names),
      ),
    ),
  );
}

function settingsForm(
  ctx: ViewContext,
  channel: TcfChannel,
  chosen: Vendor[],
  names: Names,
  changed: () => void,
): HTMLElement {
  const tcf = channel.tcf ?? null;
  const base = `tcf-${channel.id}`;
  const number = (
    name: string,
    label: string,
    hint: string,
    value: string,
    attrs: Record<string, number>,
  ) => {
    const control = input(name, {
      type: 'number',
      inputmode: 'numeric',
      step: 1,
      id: `${base}-${name}`,
      'aria-describedby': `${base}-${name}-hint`,
      ...attrs,
    });
    control.value = value;
    return fieldWithError(control, label, hint);
  };
  const cmpId = number(
    'cmpId',
    'CMP id',
    'The id IAB Europe gave your registered CMP, from 2 to 4095. The service never lends one.',
    tcf ? String(tcf.cmpId) : '',
    { min: 2, max: 4095 },
  );
  const cmpVersion = number(
    'cmpVersion',
    'CMP version',
    'A whole number from 1: raise it when you change how the CMP works.',
    String(tcf?.cmpVersion ?? 1),
    { min: 1 },
  );
  const countryControl = input('publisherCountryCode', {
    id: `${base}-publisherCountryCode`,
    maxlength: 2,
    autocapitalize: 'characters',
    spellcheck: 'false',
    'aria-describedby': `${base}-publisherCountryCode-hint`,
  });
  countryControl.value = tcf?.publisherCountryCode ?? '';
  const country = fieldWithError(
    countryControl,
    'Publisher country',
    'Where the publisher is established: two letters (ISO 3166-1), e.g. FR.',
  );
  const treatment = h('input', {
    type: 'checkbox',
    name: 'purposeOneTreatment',
    id: `${base}-purposeOneTreatment`,
    'aria-describedby': `${base}-purposeOneTreatment-hint`,
  });
  treatment.checked = tcf?.purposeOneTreatment ?? false;
  const picker = vendorPicker({ channelId: channel.id, chosen, names, changed });
  const formError = h('div', { class: 'field-error', id: `${base}-form-error`, hidden: true });
  const box = messageBox();
  const submit = h('button', { type: 'submit' }, 'Save TCF settings');
  const turnOff = tcf
    ? button('Stop running as a TCF CMP', () => void save(null), { class: 'danger' })
    : null;
  const controls: Record<string, HTMLInputElement> = {
    cmpId: cmpId.control,
    cmpVersion: cmpVersion.control,
    publisherCountryCode: countryControl,
    purposeOneTreatment: treatment,
  };

  function clearErrors() {
    formError.hidden = true;
    formError.replaceChildren();
    for (const { control, error } of [cmpId, cmpVersion, country]) {
      control.removeAttribute('aria-invalid');
      control.setAttribute('aria-describedby', `${control.id}-hint`);
      error.hidden = true;
      error.textContent = '';
    }
  }

  /** The API's `errors[]` at their fields: `/tcf/cmpId` → CMP id, `/tcf/vendorIds/2` → the third vendor sent. */
  function showErrors(errors: { path: string; message: string }[], sentIds: number[]): HTMLElement | null {
    let first: HTMLElement | null = null;
    const elsewhere: string[] = [];
    for (const { path, message } of errors) {
      const at = /^\/tcf\/(\w+)(?:\/(\d+))?$/.exec(path);
      const holder = at && [cmpId, cmpVersion, country].find((f) => f.control.name === at[1]);
      if (holder) {
        holder.error.hidden = false;
        holder.error.textContent = message;
        holder.control.setAttribute('aria-invalid', 'true');
        holder.control.setAttribute('aria-describedby', `${holder.control.id}-hint ${holder.error.id}`);
        first ??= holder.control;
      } else if (at?.[1] === 'vendorIds' && at[2] !== undefined && sentIds[Number(at[2])] !== undefined) {
        picker.markInvalid([sentIds[Number(at[2])]], message);
        elsewhere.push(message);
      } else elsewhere.push(path && path !== '/' ? `${path}: ${message}` : message);
    }
    if (elsewhere.length) {
      formError.hidden = false;
      formError.replaceChildren(h('ul', {}, ...elsewhere.map((text) => h('li', {}, text))));
    }
    return first ?? (elsewhere.length ? picker.chosenList : null);
  }

  async function save(body: ChannelTcf | null) {
    submit.disabled = true;
    box.hidden = true;
    clearErrors();
    const sentIds = body?.vendorIds ?? [];
    try {
      const { data } = await call<{ configVersion: number }>('PATCH', `/v1/channels/${channel.id}`, {
        tcf: body,
      });
      pendingNotice = {
        channelId: channel.id,
        text: body
          ? `TCF settings saved with ${sentIds.length} ${sentIds.length === 1 ? 'vendor' : 'vendors'}. The channel is at config version ${data.configVersion}.`
          : `The channel no longer runs as a TCF CMP. It is at config version ${data.configVersion}.`,
      };
      ctx.refresh();
    } catch (error) {
      const errors = error instanceof ApiError && Array.isArray(error.body.errors) ? error.body.errors : [];
      const first = showErrors(errors as { path: string; message: string }[], sentIds);
      box.show(error instanceof ApiError && error.status === 409 ? noListYet(error) : error);
      first?.focus();
    } finally {
      submit.disabled = false;
    }
  }

  const el = h(
    'form',
    { 'aria-label': 'TCF settings', class: 'stack tcf-form', novalidate: true },
    cmpId.el,
    cmpVersion.el,
    country.el,
    h(
      'div',
      { class: 'field' },
      h('label', { class: 'check' }, treatment, 'Purpose one treatment'),
      h(
        'small',
        { id: `${base}-purposeOneTreatment-hint` },
        'Only where the publisher’s country does not require consent to store or read information on a device: the banner then does not ask for purpose 1.',
      ),
    ),
    picker.el,
    formError,
    h('div', { class: 'row' }, submit, turnOff),
    box,
  );
  el.addEventListener('submit', (event) => {
    event.preventDefault();
    const whole = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim());
    void save({
      cmpId: whole(controls.cmpId.value) as number,
      cmpVersion: whole(controls.cmpVersion.value) as number,
      vendorIds: chosen.map((v) => v.id),
      publisherCountryCode: countryControl.value.trim().toUpperCase(),
      purposeOneTreatment: treatment.checked,
    });
  });
  return el;
}

/** A labelled control with its hint and a place for the API's message about it. */
function fieldWithError(control: HTMLInputElement, label: string, hint: string) {
  const error = h('p', { class: 'field-error', id: `${control.id}-error`, hidden: true });
  const el = h(
    'div',
    { class: 'field' },
    h('label', { for: control.id }, label),
    control,
    h('small', { id: `${control.id}-hint` }, hint),
    error,
  );
  return { el, control, error };
}
