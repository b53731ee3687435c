import { gppSectionFor, US_STATE_SECTIONS } from '../../../src/shared/us-gpp-sections.ts';
import { api, type RequestBody, type Schemas } from '../api.ts';
import { field, h, select, table } from '../dom.ts';
import { form, section, type ViewContext } from '../ui.ts';

/** What of a channel this section reads (docs/guides/us-privacy.md, docs/guides/tag-managers.md). */
export type SignalsChannel = Pick<
  Schemas['Channel'],
  'id' | 'regionRules' | 'gppCmpId' | 'gppSections' | 'integrations'
>;
type ChannelPatch = RequestBody<'/v1/channels/{id}', 'patch'>;

const isUs = (code: string) => code === 'US' || code.startsWith('US-');

/**
 * Which GPP section a visitor of each region the rules name gets: GPP is for US opt-out visitors on
 * a channel with a gppCmpId, and under "state" a state with its own section gets it (the same table
 * gpp.js uses: src/shared/us-gpp-sections.ts).
 */
function sectionRows(channel: SignalsChannel): (string | HTMLElement)[][] {
  const mode = channel.gppSections ?? 'usnat';
  const rows: (string | HTMLElement)[][] = [];
  for (const rule of channel.regionRules) {
    for (const region of rule.regions) {
      let gets: string;
      if (!channel.gppCmpId) gets = 'None: the channel has no GPP CMP id';
      else if (rule.regime !== 'opt-out' || !isUs(region)) gets = 'None: GPP is for US opt-out regions';
      else if (region === 'US' && mode === 'state')
        gets = `Their state's own section where it has one (${Object.values(US_STATE_SECTIONS)
          .map((s) => s.name)
          .join(', ')}); usnat elsewhere and when only the country is known`;
      else gets = gppSectionFor(mode, region).name;
      rows.push([region, rule.regime, gets]);
    }
  }
  return rows;
}

/**
 * "US and Microsoft signals": the channel's `gppSections` and `integrations`, saved
 * with PATCH /v1/channels/:id, and per region of its rules the GPP section a visitor there gets.
 */
export function usSignalsSection(ctx: ViewContext, channel: SignalsChannel, manage: boolean): HTMLElement {
  const mode = channel.gppSections ?? 'usnat';
  const integrations = channel.integrations ?? { microsoftUet: false, microsoftClarity: false };
  const sections = select(
    'gppSections',
    [
      ['usnat', 'US National (usnat) for every US visitor'],
      ['state', "Each state's own section where IAB has one, usnat elsewhere"],
    ],
    { id: `gpp-sections-${channel.id}` },
  );
  sections.value = mode;
  const checkbox = (name: string, checked: boolean, label: string, hint: string) => {
    const control = h('input', { type: 'checkbox', name, id: `${name}-${channel.id}`, checked });
    return h(
      'div',
      { class: 'field' },
      h('label', { for: control.id }, control, ` ${label}`),
      h('small', {}, hint),
    );
  };
  const editor = form(
    'US and Microsoft signals',
    [
      field(
        'GPP sections for US visitors',
        sections,
        'Which IAB GPP section US opt-out visitors get. Changing it asks no one again.',
      ),
      checkbox(
        'microsoftUet',
        integrations.microsoftUet,
        'Microsoft UET consent mode',
        'ad_storage to window.uetq: denied by default, then each change.',
      ),
      checkbox(
        'microsoftClarity',
        integrations.microsoftClarity,
        'Microsoft Clarity consent (consentv2)',
        'ad_Storage and analytics_Storage to Clarity on each change.',
      ),
    ],
    'Save',
    async (el) => {
      const checked = (name: string) => (el.elements.namedItem(name) as HTMLInputElement).checked;
      await api.PATCH('/v1/channels/{id}', {
        params: { path: { id: channel.id } },
        body: {
          // The select offers only the API's modes.
          gppSections: sections.value as ChannelPatch['gppSections'],
          integrations: {
            microsoftUet: checked('microsoftUet'),
            microsoftClarity: checked('microsoftClarity'),
          },
        },
      });
      ctx.refresh();
    },
  );
  const el = section(
    'US and Microsoft signals',
    h(
      'p',
      {},
      `GPP: ${mode === 'state' ? "each state's own section where it has one" : 'usnat for every US visitor'}. Microsoft UET: ${integrations.microsoftUet ? 'on' : 'off'}. Clarity: ${integrations.microsoftClarity ? 'on' : 'off'}.`,
    ),
    table(
      ['Region', 'Regime', 'GPP section a visitor there gets'],
      sectionRows(channel),
      'GPP section by region',
    ),
    manage ? editor : null,
  );
  el.classList.add('us-signals');
  return el;
}
