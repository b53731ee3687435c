import { GVL } from '@iabtechlabtcf/core';
import type { Choice } from '../../../sdk/src/decisions.ts';
import { acceptAll, rejectAll } from '../../../sdk/src/tcf/layers/all-or-nothing.ts';
import { disclosureOf } from '../../../sdk/src/tcf/layers/disclosure.ts';
import { restrictedList } from '../../../sdk/src/tcf/layers/restrictions.ts';
import { type EncodeSettings, encodeChoice, stillValid } from '../../../sdk/src/tcf/tc-model.ts';
import type { Decisions, SiteConfig, Source, TcfConfig, TcSent } from '../../../sdk/src/types.ts';
import { acString } from '../../../src/shared/additional-consent.ts';
import type { Transport } from './transport.ts';

/** A TCF channel's vendor list slice and settings, as the encoder takes them. */
export interface TcfContext {
  gvl: GVL;
  settings: EncodeSettings;
}

/**
 * The channel's slice of the vendor list, from the service (the path the config names, asked of
 * the client's own base URL, as the web SDK does), in English: the app draws its own texts, and the
 * string's consentLanguage is the list's.
 */
export async function loadTcf(transport: Transport, config: SiteConfig): Promise<TcfContext | null> {
  const tcf = config.tcf;
  if (!tcf) return null;
  const path = tcf.vendorListUrl.replace(/^https?:\/\/[^/]+/, '');
  const res = await transport.get(`${path}${path.includes('?') ? '&' : '?'}lang=en`);
  if (!res.ok) throw new Error(`[consent-service] vendor list unavailable: HTTP ${res.status}`);
  const settings: EncodeSettings = { ...tcf, purposeKeys: config.purposes.map((p) => p.key) };
  return { gvl: new GVL(await res.json()), settings };
}

/** The TC string's ConsentScreen: the app's first layer (the banner), its second, or none (the app's code). */
const SCREENS: Record<string, number> = { banner: 1, preference_center: 2 };

/**
 * The TC (and Additional Consent) string of a choice, made as the web's layers make it (tc-model.ts):
 * "Accept all" consents to everything the channel's vendors disclose, "Reject all" refuses it all.
 * A choice per purpose of the channel's own sets only those (the Publisher TC segment): it grants
 * no IAB purpose or vendor, which needs the second layer's choices.
 */
export function tcStringFor(
  ctx: TcfContext,
  config: SiteConfig,
  choice: Choice,
  decisions: Decisions,
  source: Source,
): TcSent {
  const tcf = ctx.settings as TcfConfig;
  const all = choice === 'accept-all';
  const made = all
    ? acceptAll(
        disclosureOf(restrictedList(ctx.gvl, tcf), { purposeOneTreatment: tcf.purposeOneTreatment }),
        config,
      )
    : { ...rejectAll(config), decisions };
  const tcString = encodeChoice(ctx.gvl, ctx.settings, { ...made, consentScreen: SCREENS[source] ?? 0 });
  const providers = tcf.googleAdditionalConsent?.providerIds ?? [];
  const addtlConsent = providers.length ? acString(all ? providers : [], providers) : undefined;
  return { tcString, ...(addtlConsent && { addtlConsent }) };
}

/** A kept string still speaks for the channel (its CMP, the list's policy version). */
export const tcStillValid = (tcString: string, tcf: TcfConfig) => stillValid(tcString, tcf) !== null;
