import type { GVL } from '@iabtechlabtcf/core';
import { h } from '../../dom.ts';
import { formatDuration } from './duration.ts';
import type { LayerContext } from './index.ts';
import { fill } from './strings.ts';

type Vendor = GVL['vendors'][string];

/** A vendor's storage disclosure as the service fetched it (the slice's `deviceStorage`). */
interface DeviceStorage {
  disclosures: Array<{
    identifier: string;
    type: 'cookie' | 'web' | 'app';
    maxAgeSeconds: number | null;
    cookieRefresh?: boolean;
    domains?: string[];
    purposes: number[];
  }>;
}

/**
 * How a vendor stores information on the device (the TCF policy's storage disclosure): how long its
 * cookies last (a session cookie as such), whether they are refreshed, other means of storage, and,
 * item by item, what its disclosure file declares, each with its purposes by their standard names.
 */
export function storageLines(ctx: LayerContext, vendor: Vendor): Node[] {
  const { t, language, gvl } = ctx;
  const v = vendor as Vendor & { cookieRefresh?: boolean | null; deviceStorage?: DeviceStorage };
  const summary: string[] = [];
  if (v.usesCookies && typeof v.cookieMaxAgeSeconds === 'number') {
    // 0 (and, read so by the service, a negative age) is a session cookie.
    summary.push(
      v.cookieMaxAgeSeconds > 0
        ? fill(t.storage, { d: formatDuration(v.cookieMaxAgeSeconds, language) })
        : t.session,
    );
    if (v.cookieRefresh === true) summary.push(t.refresh);
    else if (v.cookieRefresh === false) summary.push(t.noRefresh);
  }
  if (v.usesNonCookieAccess) summary.push(t.nonCookie);
  const nodes: Node[] = [];
  if (summary.length) nodes.push(h('p', { 'data-tcf-storage': true }, summary.join(' ')));
  if (v.deviceStorage) {
    const list = h('ul', { class: 'cs-tcf-storage', 'aria-label': t.storageList });
    for (const item of v.deviceStorage.disclosures) {
      const facts: string[] = [t[item.type] ?? item.type];
      if (item.type === 'cookie' && item.maxAgeSeconds !== null) {
        facts.push(item.maxAgeSeconds > 0 ? formatDuration(item.maxAgeSeconds, language) : t.sessionShort);
        if (item.cookieRefresh) facts.push(t.refreshed);
      }
      const purposes = item.purposes.map((id) => gvl.purposes[id]?.name ?? String(id)).join('; ');
      const domains = item.domains?.length ? ` · ${item.domains.join(', ')}` : '';
      list.append(
        h(
          'li',
          { 'data-tcf-storage-item': item.identifier },
          h('code', {}, item.identifier),
          ` (${facts.join(', ')})${domains}${purposes ? ` · ${purposes}` : ''}`,
        ),
      );
    }
    if (list.childNodes.length) nodes.push(h('p', {}, h('strong', {}, `${t.storageList}:`)), list);
  } else if (v.deviceStorageDisclosureUrl) {
    nodes.push(h('p', { 'data-tcf-storage-missing': true }, t.storageMissing));
  }
  return nodes;
}
