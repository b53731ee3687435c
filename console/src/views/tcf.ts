import { ApiError, answer, api, type Schemas } from '../api.ts';
import { h } from '../dom.ts';
import { guideLink } from '../guide-link.ts';
import { messageBox, noticeAfterRedraw, type ViewContext } from '../ui.ts';
import { settingsForm } from './tcf-form.ts';
import { layersPreview, type OwnPurpose } from './tcf-preview.ts';
import { type Names, namesOf, noListYet, type Vendor, type VendorList, vendorFacts } from './tcf-vendors.ts';

/**
 * The channel's `tcf` field when set (null until the channel runs as an IAB TCF CMP); its
 * publisherRestrictions and googleAdditionalConsent are set through the API (docs/guides/tcf.md),
 * and the form keeps them.
 */
export type ChannelTcf = NonNullable<Schemas['Channel']['tcf']>;

/** reopenControl: after a decision, the layers' reopen control ("floating") or only the page's links ("none"). */
export type TcfChannel = Pick<Schemas['Channel'], 'id' | 'tcf' | 'reopenControl'>;

/** The guide, as the service serves it (GET /docs/guides/<name>). */
const GUIDE = () => guideLink('Run as an IAB TCF CMP', 'tcf.md');

/** A vendor the channel names that the newest list does not have (deleted since): shown, so it can be removed. */
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
  ownPurposes: OwnPurpose[],
): Promise<HTMLElement[]> {
  const heading = h('h2', { id: `tcf-${channel.id}`, tabindex: -1 }, 'IAB TCF');
  const notice = messageBox();
  const said = noticeAfterRedraw(ctx, 'tcf').take(channel.id);
  if (said) {
    notice.ok(said);
    setTimeout(() => heading.isConnected && heading.focus(), 0);
  }
  const intro = h(
    'p',
    { class: 'lead' },
    'Run this channel as an IAB Transparency and Consent Framework CMP: visitors in opt-in regions get the two TCF layers, and ad tech reads their TC string. Use the CMP id IAB Europe registered for you; see ',
    GUIDE(),
    '.',
  );
  const tcf = channel.tcf ?? null;
  let list: VendorList;
  try {
    list = (await answer(api.GET('/v1/tcf/vendor-list'))).data;
  } catch (error) {
    // No list yet is a state of the service, not a failure of this page: said plainly, with what to do.
    const box = messageBox();
    if (error instanceof ApiError && error.status === 409) {
      box.hidden = false;
      box.className = 'message warning';
      box.setAttribute('role', 'status');
      box.textContent = noListYet(error).detail;
    } else box.show(error);
    return [h('section', { class: 'card tcf-section' }, heading, notice, intro, settingsFacts(tcf), box)];
  }
  const names = namesOf(list);
  const byId = new Map(list.vendors.map((v) => [v.id, v]));
  const chosen = (tcf?.vendorIds ?? []).map((id) => byId.get(id) ?? missingVendor(id));
  // The form's purpose one treatment, read by the preview and set by the form's checkbox.
  const treatment = { on: tcf?.purposeOneTreatment ?? false };
  const preview = layersPreview(chosen, names, list.stacks, ownPurposes, () => treatment.on);
  const listFacts = h(
    'p',
    {},
    `IAB vendor list version ${list.vendorListVersion} (policy version ${list.tcfPolicyVersion}), updated ${list.lastUpdated.slice(0, 10)}: ${list.vendors.filter((v) => !v.deletedDate).length} vendors.`,
  );
  const body = manage
    ? settingsForm(ctx, channel, chosen, names, preview.redraw, treatment)
    : h('div', {}, settingsFacts(tcf), chosenFacts(chosen, names));
  return [h('section', { class: 'card tcf-section' }, heading, notice, intro, listFacts, body), preview.el];
}

/** The saved settings, read-only (members without channels:manage, or no vendor list yet). */
function settingsFacts(tcf: ChannelTcf | null): HTMLElement {
  if (!tcf) return h('p', {}, 'This channel does not run as a TCF CMP.');
  const item = (term: string, detail: string) => [h('dt', {}, term), h('dd', {}, detail)];
  return h(
    'dl',
    { class: 'facts' },
    ...item('CMP id', String(tcf.cmpId)),
    ...item('CMP version', tcf.cmpVersion === null ? 'the service’s TCF release' : String(tcf.cmpVersion)),
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
        h('h3', {}, `${v.name} `, h('span', { class: 'muted' }, `(vendor ${v.id})`)),
        vendorFacts(v, names),
      ),
    ),
  );
}
