import { GVL, PurposeRestriction, TCModel, TCString } from '@iabtechlabtcf/core';
import { createByteLru } from '../../../platform/cache/byte-lru.ts';
import type { Db } from '../../../platform/db/store.ts';
import {
  type PublisherRestriction,
  type SnapshotTcf,
  TCF_RELEASE,
} from '../settings/tcf-settings.service.ts';
import type { VendorListRow } from '../tcf.repo.ts';
import { vendorListSlice } from '../vendor-list/vendor-list-view.ts';
import { CONSENT_ONLY_PURPOSES } from './tc-string-rules.ts';

/**
 * A recorded TC string as tcf.js would serve it today (sdk/src/tcf/tc-model.ts, `encodeChoice`
 * with the kept string as `earlier`): the visitor's choice of then, re-encoded by IAB's library
 * against the channel's current vendors and vendor list, so that what a backend reads from the
 * consent state is what vendors on the page read from `__tcfapi`. A vendor the channel removed, or
 * IAB deleted, keeps no signal and is no longer disclosed (the library drops what its list lacks);
 * the dates, the language and the screen stay the choice's. This mirrors tcf.js rule for rule:
 * the SDK's file cannot be imported here (it is browser code bundled apart), and a change to one
 * must be made to the other (test/evidence/consent-state-served-tc-string.test.ts compares them).
 */

/** The channel as tcf.js sees it now: its current config's TCF settings and its own purposes. */
export interface ServedTcSettings {
  cmpId: number;
  /** The effective version: pinned, or the service's TCF release. */
  cmpVersion: number;
  tcfPolicyVersion: number;
  publisherCountryCode: string;
  purposeOneTreatment: boolean;
  publisherRestrictions: readonly PublisherRestriction[];
  /** The current config's purposes' keys in its order (custom purpose n is the n-th). */
  purposeKeys: readonly string[];
}

const RESTRICTION_TYPES = ['not_allowed', 'require_consent', 'require_li'] as const;

const ids = (vector: TCModel['purposeConsents']): number[] => {
  const out: number[] = [];
  vector.forEach((on, id) => {
    if (on) out.push(id);
  });
  return out;
};

/** The list as the encoder reads it: it writes ConsentLanguage from the list's language. */
function speaking(gvl: GVL, consentLanguage: string): GVL {
  if (!consentLanguage || gvl.language.slice(0, 2).toUpperCase() === consentLanguage.toUpperCase())
    return gvl;
  return Object.create(gvl, { lang_: { value: consentLanguage.toUpperCase() } });
}

/**
 * The channel's slice of its current vendor list (vendorListSlice) as IAB's library reads it, made
 * once for all the strings of a read. TCString.encode clones the model before its semantic pass,
 * and with it the list, which the clone populates again from scratch: measured, about 6 ms a
 * string for a slice of 1,000 vendors, so 0.6 s of the event loop for a lookup of 100 subjects.
 * Nothing in the pass changes the list (it reads the vendors' declarations), so the model's clone
 * shares it: the string is the same, at about 0.1 ms. `this`, not the list itself: a list lent
 * another language (`speaking`) must stay that one in the clone, since the pass writes
 * ConsentLanguage from it.
 */
export function servedVendorList(slice: Record<string, unknown>): GVL {
  const gvl = new GVL(slice as never);
  Object.defineProperty(gvl, 'clone', {
    value(this: GVL) {
      return this;
    },
  });
  return gvl;
}

/**
 * The string tcf.js would serve for `recorded` and the subject's current `decisions`, or null when
 * it would serve none and ask again: the string does not decode, names another CMP, or another
 * TCF policy version than the current list's (a new policy voids earlier strings).
 */
export function servedTcString(
  recorded: string,
  decisions: Readonly<Record<string, 'granted' | 'denied'>>,
  gvl: GVL,
  settings: ServedTcSettings,
): string | null {
  let earlier: TCModel;
  try {
    earlier = TCString.decode(recorded);
  } catch {
    return null;
  }
  if (Number(earlier.cmpId) !== settings.cmpId || Number(earlier.policyVersion) !== settings.tcfPolicyVersion)
    return null;
  const model = new TCModel(speaking(gvl, String(earlier.consentLanguage)));
  model.created = earlier.created;
  model.lastUpdated = earlier.lastUpdated;
  model.consentLanguage = earlier.consentLanguage;
  model.consentScreen = earlier.consentScreen;
  model.cmpId = settings.cmpId;
  model.cmpVersion = settings.cmpVersion;
  model.isServiceSpecific = true;
  model.publisherCountryCode = settings.publisherCountryCode;
  model.purposeOneTreatment = settings.purposeOneTreatment;
  model.purposeConsents.set(ids(earlier.purposeConsents));
  model.purposeLegitimateInterests.set(
    ids(earlier.purposeLegitimateInterests).filter((id) => !CONSENT_ONLY_PURPOSES.includes(id)),
  );
  model.vendorConsents.set(ids(earlier.vendorConsents));
  model.vendorLegitimateInterests.set(ids(earlier.vendorLegitimateInterests));
  model.specialFeatureOptins.set(ids(earlier.specialFeatureOptins));
  // Every vendor of the slice is shown by the layers (deleted ones are not in it).
  model.vendorsDisclosed.set(
    Object.values(gvl.vendors)
      .filter((v) => !v.deletedDate)
      .map((v) => v.id),
  );
  for (const { purposeId, type, vendorIds } of settings.publisherRestrictions) {
    const restriction = new PurposeRestriction(purposeId, RESTRICTION_TYPES.indexOf(type));
    for (const id of vendorIds) model.publisherRestrictions.add(id, restriction);
  }
  model.numCustomPurposes = settings.purposeKeys.length;
  model.publisherCustomConsents.set(
    settings.purposeKeys.flatMap((key, i) => (decisions[key] === 'granted' ? [i + 1] : [])),
  );
  return TCString.encode(model);
}

/** What the served TC strings kept in memory may weigh (UTF-16 bytes of their keys and values). */
export const SERVED_CACHE_BYTES = 16 * 1024 * 1024;

type Decisions = Readonly<Record<string, 'granted' | 'denied'>>;

/**
 * The consent state's served strings (servedTcStrings), for the tcf service. An answer never
 * changes for a config version (its vendors, vendor list version and settings are fixed), the
 * decisions and the recorded string, so answers are kept: strings have a day's precision, and
 * visitors who made the same choice on the same day share one, so a backend's repeated lookups and
 * its subjects' common choices cost one re-encoding each (about 0.65 ms for a slice of 1,000
 * vendors). Bounded by bytes, since anyone with a key chooses the subjects read.
 */
export function createServedTcStrings(deps: {
  vendorList: (db: Db, version: number) => Promise<VendorListRow | null>;
}) {
  const kept = createByteLru<string | null>({ maxBytes: SERVED_CACHE_BYTES });
  /**
   * `recorded` as tcf.js would serve each today on a channel whose current config is `notice`
   * (`configKey` names it: channel and version); null where tcf.js would serve none, or when that
   * config's vendor list can no longer be read. The slice and its model are made once, for the
   * strings not kept.
   */
  return async function servedTcStrings(
    db: Db,
    notice: { configKey: string; tcf: SnapshotTcf; purposeKeys: readonly string[] },
    recorded: ReadonlyArray<{ tcString: string; decisions: Decisions }>,
  ): Promise<Array<string | null>> {
    const { tcf } = notice;
    const keys = recorded.map(({ tcString, decisions }) => {
      const choice = Object.entries(decisions).sort(([a], [b]) => (a < b ? -1 : 1));
      return `${notice.configKey}\n${JSON.stringify(choice)}\n${tcString}`;
    });
    const answers = keys.map((key) => kept.get(key));
    if (answers.every((answer) => answer !== undefined)) return answers as Array<string | null>;
    const list = await deps.vendorList(db, tcf.vendorListVersion);
    if (!list) return recorded.map(() => null);
    const gvl = servedVendorList(vendorListSlice(list.body, tcf.vendorIds, null));
    const settings: ServedTcSettings = {
      cmpId: tcf.cmpId,
      cmpVersion: tcf.cmpVersion ?? TCF_RELEASE,
      tcfPolicyVersion: tcf.tcfPolicyVersion,
      publisherCountryCode: tcf.publisherCountryCode,
      purposeOneTreatment: tcf.purposeOneTreatment,
      publisherRestrictions: tcf.publisherRestrictions ?? [],
      purposeKeys: notice.purposeKeys,
    };
    return recorded.map(({ tcString, decisions }, i) => {
      const answer = answers[i];
      if (answer !== undefined) return answer;
      const served = servedTcString(tcString, decisions, gvl, settings);
      kept.set(keys[i], served, 2 * (keys[i].length + (served?.length ?? 0)));
      return served;
    });
  };
}
