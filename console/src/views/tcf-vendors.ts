import { ApiError, answer, api } from '../api.ts';
import { button, h, input } from '../dom.ts';
import { messageBox } from '../ui.ts';

/** A declaration of the Global Vendor List: a purpose, a special purpose, a feature, a special feature… */
export interface Declaration {
  id: number;
  name: string;
  description?: string;
}

export interface Stack extends Declaration {
  purposes: number[];
  specialFeatures: number[];
}

/** A vendor as the list declares it (GVL v3); the console reads only these fields. */
export interface Vendor {
  id: number;
  name: string;
  purposes: number[];
  legIntPurposes: number[];
  flexiblePurposes: number[];
  specialPurposes: number[];
  features: number[];
  specialFeatures: number[];
  deletedDate?: string;
}

/**
 * `GET /v1/tcf/vendor-list`: the newest version the service holds, every array sorted by id; the
 * fields the console reads, checked against the API's VendorList where the answer is read.
 */
export interface VendorList {
  vendorListVersion: number;
  tcfPolicyVersion: number;
  lastUpdated: string;
  purposes: Declaration[];
  specialPurposes: Declaration[];
  features: Declaration[];
  specialFeatures: Declaration[];
  stacks: Stack[];
  dataCategories: Declaration[];
  vendors: Vendor[];
}

/** Names by id, for each kind of declaration: vendors name only ids. */
export interface Names {
  purposes: Map<number, string>;
  specialPurposes: Map<number, string>;
  features: Map<number, string>;
  specialFeatures: Map<number, string>;
}

export function namesOf(list: VendorList): Names {
  const byId = (items: Declaration[]) => new Map(items.map((d) => [d.id, d.name]));
  return {
    purposes: byId(list.purposes),
    specialPurposes: byId(list.specialPurposes),
    features: byId(list.features),
    specialFeatures: byId(list.specialFeatures),
  };
}

/** "1. Store and/or access information on a device; 2. …", or "none". */
export function listed(ids: number[], names: Map<number, string>): string {
  return ids.length ? ids.map((id) => `${id}. ${names.get(id) ?? 'unknown'}`).join('; ') : 'none';
}

/** What a vendor declares, by name: what the operator weighs before adding it to the banner. */
export function vendorFacts(vendor: Vendor, names: Names): HTMLElement {
  const item = (term: string, detail: string) => [h('dt', {}, term), h('dd', {}, detail)];
  return h(
    'dl',
    { class: 'facts' },
    ...item('Purposes (consent)', listed(vendor.purposes, names.purposes)),
    ...item('Legitimate interests', listed(vendor.legIntPurposes, names.purposes)),
    ...item('Special features', listed(vendor.specialFeatures, names.specialFeatures)),
  );
}

/**
 * The vendor picker: a search (`GET /v1/tcf/vendor-list?q=`, on vendor names) whose results can be
 * added, and the chosen vendors with a remove button each. `chosen` is edited in place; `changed`
 * runs after each change (the layer preview follows it).
 */
export function vendorPicker(options: {
  channelId: string;
  chosen: Vendor[];
  names: Names;
  changed: () => void;
}): { el: HTMLElement; chosenList: HTMLElement; markInvalid(ids: number[], message: string): void } {
  const { channelId, chosen, names, changed } = options;
  const said = h('p', { role: 'status', class: 'visually-hidden' });
  const chosenList = h('ul', { class: 'tcf-vendors', 'aria-label': 'Chosen vendors', tabindex: -1 });
  const empty = h('p', { class: 'empty' }, 'No vendors chosen yet: search the vendor list below.');
  const query = searchInput(channelId, () => void search());
  const results = h('div', { class: 'tcf-results' });
  const searchBox = messageBox();
  const searchButton = button('Search vendors', () => void search());

  const problems = new Map<number, string>();

  function drawChosen() {
    chosenList.replaceChildren(
      ...chosen.map((vendor) =>
        chosenVendorItem(vendor, names, channelId, problems.get(vendor.id), () => {
          chosen.splice(chosen.indexOf(vendor), 1);
          problems.delete(vendor.id);
          drawChosen();
          drawResults();
          changed();
          said.textContent = `${vendor.name} removed: ${count()}.`;
          searchButton.focus();
        }),
      ),
    );
    chosenList.hidden = chosen.length === 0;
    empty.hidden = chosen.length > 0;
  }

  let found: Vendor[] = [];
  let searched = '';
  // The search's results, each with Add or a note that it is chosen already.
  function drawResults() {
    if (!searched) return results.replaceChildren();
    const shown = found.filter((v) => !v.deletedDate).slice(0, RESULTS_SHOWN);
    results.replaceChildren(
      h('p', {}, resultsSummary(found.length, shown.length, searched)),
      h(
        'ul',
        { class: 'tcf-vendors', 'aria-label': 'Vendors found' },
        ...shown.map((vendor) =>
          foundVendorItem(
            vendor,
            names,
            chosen.some((c) => c.id === vendor.id),
            () => {
              chosen.push(vendor);
              chosen.sort((a, b) => a.id - b.id);
              drawChosen();
              drawResults();
              changed();
              said.textContent = `${vendor.name} added: ${count()}.`;
              query.focus();
            },
          ),
        ),
      ),
    );
  }

  const count = () => `${chosen.length} ${chosen.length === 1 ? 'vendor' : 'vendors'} chosen`;

  async function search() {
    const q = query.value.trim();
    searchButton.disabled = true;
    searchBox.hidden = true;
    try {
      const { data }: { data: VendorList } = await answer(
        api.GET('/v1/tcf/vendor-list', { params: { query: { q } } }),
      );
      found = data.vendors;
      searched = q || 'any name';
      drawResults();
      // Said once, not the whole list: the results follow the field in reading order.
      said.textContent = results.firstElementChild?.textContent ?? '';
    } catch (error) {
      searchBox.show(error instanceof ApiError && error.status === 409 ? noListYet(error) : error);
    } finally {
      searchButton.disabled = false;
    }
  }

  drawChosen();
  const el = pickerFieldset({ channelId, chosenList, empty, query, searchButton, searchBox, results, said });
  return {
    el,
    chosenList,
    markInvalid(ids, message) {
      for (const id of ids) problems.set(id, message);
      drawChosen();
    },
  };
}

/** The search field: Enter in it searches, and must not submit the settings form around it. */
function searchInput(channelId: string, search: () => void): HTMLInputElement {
  const query = input('q', {
    type: 'search',
    id: `tcf-search-${channelId}`,
    'aria-describedby': `tcf-search-${channelId}-hint`,
  });
  query.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      search();
    }
  });
  return query;
}

/** A chosen vendor: what it declares, why it is a problem (deleted, or the API's message), and Remove. */
function chosenVendorItem(
  vendor: Vendor,
  names: Names,
  channelId: string,
  problem: string | undefined,
  remove: () => void,
): HTMLElement {
  const errorId = `tcf-vendor-${channelId}-${vendor.id}-error`;
  return h(
    'li',
    { class: 'card tcf-vendor', 'aria-describedby': problem ? errorId : null },
    h('h3', {}, `${vendor.name} `, h('span', { class: 'muted' }, `(vendor ${vendor.id})`)),
    vendor.deletedDate
      ? h(
          'p',
          { class: 'field-error' },
          'Not in the newest vendor list (IAB deleted it, or never listed it): visitors are no longer asked about it. Remove it.',
        )
      : null,
    problem ? h('p', { class: 'field-error', id: errorId }, problem) : null,
    vendorFacts(vendor, names),
    button('Remove', remove, { class: 'danger', 'aria-label': `Remove ${vendor.name}` }),
  );
}

/** A vendor found by the search, with Add (or a note that it is chosen already). */
function foundVendorItem(vendor: Vendor, names: Names, isChosen: boolean, add: () => void): HTMLElement {
  return h(
    'li',
    { class: 'card tcf-vendor' },
    h('h3', {}, `${vendor.name} `, h('span', { class: 'muted' }, `(vendor ${vendor.id})`)),
    vendorFacts(vendor, names),
    isChosen
      ? h('p', { class: 'muted' }, 'Chosen.')
      : button('Add', add, { 'aria-label': `Add ${vendor.name}` }),
  );
}

/** How many vendors the search found, and whether only the first of them are shown. */
function resultsSummary(found: number, shown: number, searched: string): string {
  return shown === 0
    ? `No vendor's name matches "${searched}".`
    : found > shown
      ? `${found} vendors match "${searched}"; the first ${shown} are shown: narrow the search.`
      : `${shown} ${shown === 1 ? 'vendor matches' : 'vendors match'} "${searched}".`;
}

/** The picker's layout: the chosen vendors, then the search and its results. */
function pickerFieldset(parts: {
  channelId: string;
  chosenList: HTMLElement;
  empty: HTMLElement;
  query: HTMLInputElement;
  searchButton: HTMLButtonElement;
  searchBox: HTMLElement;
  results: HTMLElement;
  said: HTMLElement;
}): HTMLElement {
  const { channelId, chosenList, empty, query, searchButton, searchBox, results, said } = parts;
  return h(
    'fieldset',
    { class: 'tcf-picker' },
    h('legend', {}, 'Vendors'),
    h(
      'p',
      { class: 'lead' },
      'The banner names every vendor chosen here, with what it declares: choose only the vendors the site works with (at most 1000).',
    ),
    chosenList,
    empty,
    h(
      'div',
      { class: 'field', role: 'search', 'aria-label': 'Vendor list' },
      h('label', { for: query.id }, 'Search vendors by name'),
      h('div', { class: 'row' }, query, searchButton),
      h(
        'small',
        { id: `tcf-search-${channelId}-hint` },
        'Part of a name, e.g. "trade"; search with an empty field to list every vendor.',
      ),
    ),
    searchBox,
    results,
    said,
  );
}

const RESULTS_SHOWN = 50;

/** The 409 of a service that has not loaded a vendor list yet, with what to do about it. */
export function noListYet(error: ApiError): ApiError {
  return new ApiError(error.status, error.code, `${error.detail} ${NO_LIST_HELP}`, error.body);
}

export const NO_LIST_HELP =
  'The worker fetches IAB’s vendor list from TCF_GVL_URL: check that a worker runs and can reach that address (or read that file: directory), wait for its first fetch, then retry.';
