import type { GVL } from '@iabtechlabtcf/core';
import { h } from '../../dom.ts';
import { itemName, sectionHeading, toggle } from './controls.ts';
import { allowedLegInt } from './disclosure.ts';
import { formatDays } from './duration.ts';
import type { LayerContext } from './index.ts';
import { storageLines } from './storage.ts';
import { fill, primaryOf } from './strings.ts';

type Vendor = GVL['vendors'][string];

/** Names of declared items (purposes, features…) by id, in the vendor list's language. */
const names = (ids: number[], table: Record<string, { name: string }> | undefined) =>
  ids.map((id) => table?.[id]?.name ?? String(id)).join('; ');

/**
 * The vendor's links in the layers' language: its entry for that language, else its English one,
 * else its first. Privacy policy and legitimate interest claim come from the same entry, so a
 * French layer never links a French policy beside an English claim (or the other way round).
 */
function linksOf(vendor: Vendor, language: string): { privacy?: string; legIntClaim?: string } {
  const urls = vendor.urls ?? [];
  const lang = primaryOf(language);
  const entry =
    urls.find((u) => primaryOf(u.langId) === lang) ??
    urls.find((u) => primaryOf(u.langId) === 'en') ??
    urls[0];
  return { privacy: entry?.privacy ?? vendor.policyUrl, legIntClaim: entry?.legIntClaim };
}

const newTab = (href: string, text: string, ctx: LayerContext) =>
  h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, text, ` ${ctx.strings.newTab}`);

/**
 * What the policy asks a CMP to disclose per vendor (Appendix B, secondary layer): its purposes
 * by legal basis, special purposes, features, special features, how long it keeps data, which
 * categories of data it uses, how it stores information on the device, and its privacy policy.
 */
function vendorDetails(ctx: LayerContext, vendor: Vendor): HTMLElement {
  const { gvl, t, language } = ctx;
  const lines: Node[] = [];
  const line = (label: string, text: string) => {
    if (text) lines.push(h('p', {}, h('strong', {}, `${label}: `), text));
  };
  // Only what the layers disclose (no purpose 1 under purposeOneTreatment).
  line(
    t.vendorPurposes,
    names(
      vendor.purposes.filter((id) => ctx.disclosure.consentPurposes.includes(id)),
      gvl.purposes,
    ),
  );
  line(t.vendorLegInt, names(allowedLegInt(vendor.legIntPurposes), gvl.purposes));
  line(t.vendorSpecialPurposes, names(vendor.specialPurposes, gvl.specialPurposes));
  line(t.vendorFeatures, names(vendor.features, gvl.features));
  line(t.vendorSpecialFeatures, names(vendor.specialFeatures, gvl.specialFeatures));
  const retention = vendor.dataRetention;
  if (retention) {
    const parts: string[] = [];
    if (retention.stdRetention !== undefined) parts.push(formatDays(retention.stdRetention, language));
    for (const [id, days] of Object.entries(retention.purposes ?? {})) {
      parts.push(`${gvl.purposes[id]?.name ?? id}: ${formatDays(days, language)}`);
    }
    for (const [id, days] of Object.entries(retention.specialPurposes ?? {})) {
      parts.push(`${gvl.specialPurposes[id]?.name ?? id}: ${formatDays(days, language)}`);
    }
    line(t.retention, parts.join('; '));
  }
  line(t.dataCategories, names(vendor.dataDeclaration ?? [], gvl.dataCategories));
  lines.push(...storageLines(ctx, vendor));
  const links = h('p', {});
  const { privacy, legIntClaim } = linksOf(vendor, language);
  if (privacy) links.append(newTab(privacy, ctx.strings.policy, ctx));
  if (legIntClaim && allowedLegInt(vendor.legIntPurposes).length)
    links.append(' ', newTab(legIntClaim, t.legIntClaim, ctx));
  if (links.childNodes.length) lines.push(links);
  return h('details', {}, h('summary', {}, fill(t.details, { name: vendor.name })), ...lines);
}

/**
 * Every vendor of the channel with its toggles: consent (off until switched on) where it asks
 * consent, and the objection to its legitimate interest (on until the visitor objects) where it
 * claims one. The toggles stay outside the folded details, so every choice is one Tab away.
 */
export function vendorSection(ctx: LayerContext): Node[] {
  const { gvl, t, disclosure: d, previous } = ctx;
  const list = h('ul');
  for (const id of d.vendorIds) {
    const vendor = gvl.vendors[id];
    const nameId = `cs-tcf-v${id}`;
    const toggles = h('div', { class: 'cs-tcf-toggles' });
    if (d.consentVendors.includes(id)) {
      const on = previous?.vendorConsents.includes(id) ?? false;
      toggles.append(toggle('data-tcf-vendor-consent', id, t.consent, nameId, on));
    }
    if (d.liVendors.includes(id)) {
      const on = previous ? previous.vendorLegitimateInterests.includes(id) : true;
      toggles.append(toggle('data-tcf-vendor-li', id, t.objection, nameId, on));
    }
    list.append(
      h(
        'li',
        { 'data-tcf-vendor': String(id) },
        itemName(nameId, vendor.name),
        toggles,
        vendorDetails(ctx, vendor),
      ),
    );
  }
  return [sectionHeading('cs-tcf-vendors', t.vendors), list];
}
