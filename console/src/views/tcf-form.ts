import { ApiError, answer, api } from '../api.ts';
import { button, h, input } from '../dom.ts';
import { messageBox, noticeAfterRedraw, type ViewContext } from '../ui.ts';
import type { ChannelTcf, TcfChannel } from './tcf.ts';
import { type Names, noListYet, type Vendor, vendorPicker } from './tcf-vendors.ts';

// Saving redraws the whole view: the notice is said after the redraw (tcf.ts shows it).

/**
 * The TCF settings form (channels:manage): CMP id and version, publisher country, purpose one
 * treatment and the vendor picker, saved with PATCH /v1/channels/:id; the API's errors (and the
 * same rules checked before sending) at their fields and vendors.
 */
export function settingsForm(
  ctx: ViewContext,
  channel: TcfChannel,
  chosen: Vendor[],
  names: Names,
  changed: () => void,
  treatmentState: { on: boolean },
): HTMLElement {
  const tcf = channel.tcf ?? null;
  const fields = settingsFields(channel, treatmentState, changed);
  const picker = vendorPicker({ channelId: channel.id, chosen, names, changed });
  const formError = h('div', { class: 'field-error', id: `tcf-${channel.id}-form-error`, hidden: true });
  const errors = settingsErrors(fields, picker, formError);
  const box = messageBox();
  const submit = h('button', { type: 'submit' }, 'Save TCF settings');
  const turnOff = tcf
    ? button('Stop running as a TCF CMP', () => void save(null), { class: 'danger' })
    : null;

  async function save(body: ChannelTcf | null) {
    submit.disabled = true;
    box.hidden = true;
    errors.clear();
    const sentIds = body?.vendorIds ?? [];
    try {
      const { data } = await answer(
        api.PATCH('/v1/channels/{id}', {
          params: { path: { id: channel.id } },
          body: { tcf: body, ...(body && { reopenControl: fields.reopen.checked ? 'floating' : 'none' }) },
        }),
      );
      noticeAfterRedraw(ctx, 'tcf').say(
        channel.id,
        body
          ? `TCF settings saved with ${sentIds.length} ${sentIds.length === 1 ? 'vendor' : 'vendors'}. The channel is at config version ${data.configVersion}.`
          : `The channel no longer runs as a TCF CMP. It is at config version ${data.configVersion}.`,
      );
      ctx.refresh();
    } catch (error) {
      const found = error instanceof ApiError && Array.isArray(error.body.errors) ? error.body.errors : [];
      const first = errors.show(found as { path: string; message: string }[], sentIds);
      box.show(error instanceof ApiError && error.status === 409 ? noListYet(error) : error);
      first?.focus();
    } finally {
      submit.disabled = false;
    }
  }

  const el = h(
    'form',
    { 'aria-label': 'TCF settings', class: 'stack tcf-form', novalidate: true },
    ...fields.els,
    picker.el,
    formError,
    h('div', { class: 'row' }, submit, turnOff),
    box,
  );
  el.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = settingsBody(fields, chosen, tcf);
    // The API's rules, checked here first so each problem shows at its field before any request.
    const problems = checkSettings(body);
    if (problems.length === 0) {
      void save(body);
      return;
    }
    box.hidden = true;
    errors.clear();
    const first = errors.show(problems, body.vendorIds);
    box.show(
      new ApiError(
        422,
        'validation_failed',
        `The TCF settings were not saved: ${problems.length === 1 ? 'one problem is' : `${problems.length} problems are`} shown with the form.`,
      ),
    );
    first?.focus();
  });
  return el;
}

type FieldWithError = ReturnType<typeof fieldWithError>;

/** The form's own fields (the vendor picker aside), and their elements in the form's order. */
interface SettingsFields {
  cmpId: FieldWithError;
  cmpVersion: FieldWithError;
  country: FieldWithError;
  treatment: HTMLInputElement;
  reopen: HTMLInputElement;
  els: HTMLElement[];
}

/**
 * CMP id and version, publisher country, purpose one treatment (kept in `treatmentState`, which
 * `changed` reports) and the reopen control, filled from the channel's settings.
 */
function settingsFields(
  channel: TcfChannel,
  treatmentState: { on: boolean },
  changed: () => void,
): SettingsFields {
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
    'Leave empty to follow the service’s TCF release, which rises with every change to how the CMP works; a whole number from 1 to 4095 pins your own.',
    tcf?.cmpVersion == null ? '' : String(tcf.cmpVersion),
    { min: 1, max: 4095 },
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
  treatment.checked = treatmentState.on;
  treatment.addEventListener('change', () => {
    treatmentState.on = treatment.checked;
    changed();
  });
  // The reopen control (docs/guides/tcf.md): saved with the settings, on unless the channel said "none".
  const reopen = h('input', {
    type: 'checkbox',
    name: 'reopenControl',
    id: `${base}-reopenControl`,
    'aria-describedby': `${base}-reopenControl-hint`,
  });
  reopen.checked = channel.reopenControl !== 'none';
  const els = [
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
    h(
      'div',
      { class: 'field' },
      h('label', { class: 'check' }, reopen, 'Reopen control'),
      h(
        'small',
        { id: `${base}-reopenControl-hint` },
        'After a decision, a “Your Privacy Choices” button at the bottom left of every page reopens the layers. Turn it off only if every page has your own link to them.',
      ),
    ),
  ];
  return { cmpId, cmpVersion, country, treatment, reopen, els };
}

/** What the form sends: its fields, the chosen vendors, and the channel's settings the form does not edit. */
function settingsBody(fields: SettingsFields, chosen: Vendor[], tcf: ChannelTcf | null) {
  const whole = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim());
  return {
    cmpId: whole(fields.cmpId.control.value) as number,
    // Empty: null, the service's TCF release.
    cmpVersion:
      fields.cmpVersion.control.value.trim() === ''
        ? null
        : (whole(fields.cmpVersion.control.value) as number),
    vendorIds: chosen.map((v) => v.id),
    publisherCountryCode: fields.country.control.value.trim().toUpperCase(),
    purposeOneTreatment: fields.treatment.checked,
    // The form does not edit restrictions: it keeps the channel's, for the vendors still chosen
    // (a restriction may only name chosen vendors), so saving here never drops one silently.
    publisherRestrictions: (tcf?.publisherRestrictions ?? [])
      .map((r) => ({ ...r, vendorIds: r.vendorIds.filter((id) => chosen.some((v) => v.id === id)) }))
      .filter((r) => r.vendorIds.length > 0),
    // Nor does it edit Google Additional Consent: the channel's providers are kept as they are.
    googleAdditionalConsent: tcf?.googleAdditionalConsent ?? null,
  };
}

/** Shows the API's errors (or the same rules checked before sending) at the fields and vendors they name. */
function settingsErrors(
  { cmpId, cmpVersion, country }: SettingsFields,
  picker: ReturnType<typeof vendorPicker>,
  formError: HTMLElement,
) {
  function clear() {
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
  function show(errors: { path: string; message: string }[], sentIds: number[]): HTMLElement | null {
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

  return { clear, show };
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

/** The API's rules for `tcf` (docs/guides/tcf.md), as its errors would name them. */
function checkSettings(tcf: ChannelTcf): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const inRange = (value: unknown, min: number, max: number) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
  if (!inRange(tcf.cmpId, 2, 4095)) {
    problems.push({
      path: '/tcf/cmpId',
      message: 'Enter the CMP id IAB Europe gave you: a whole number from 2 to 4095.',
    });
  }
  if (tcf.cmpVersion !== null && !inRange(tcf.cmpVersion, 1, 4095)) {
    problems.push({
      path: '/tcf/cmpVersion',
      message: 'Enter a whole number from 1 to 4095, or leave it empty to follow the service’s release.',
    });
  }
  if (!/^[A-Z]{2}$/.test(tcf.publisherCountryCode)) {
    problems.push({
      path: '/tcf/publisherCountryCode',
      message: 'Enter the two letters of a country (ISO 3166-1), e.g. FR.',
    });
  }
  if (tcf.vendorIds.length === 0 || tcf.vendorIds.length > 1000) {
    problems.push({ path: '/tcf/vendorIds', message: 'Choose from 1 to 1000 vendors.' });
  }
  return problems;
}
