import type { Clock } from '../../platform/clock.ts';
import { validationFailed } from '../../platform/http/errors.ts';
import type { VisitorConfig } from '../channels/channels.service.ts';
import { acStringProblems } from '../tcf/additional-consent/additional-consent.service.ts';
import { TCF_RELEASE } from '../tcf/settings/tcf-settings.service.ts';
import type { TcStringContext } from '../tcf/tc-strings/tc-string.schemas.ts';
import type { TcStringChecker } from './consent.service.ts';

/** What the evidence keeps of a TC string (evidence_events.tcf), as the checker gives it. */
type CheckedTcf = Extract<Awaited<ReturnType<TcStringChecker['check']>>, { tcf: unknown }>['tcf'];

/**
 * The checks of the consent strings a decision carries (docs/guides/tcf.md, "What the service
 * refuses"): its TC string, the EU TCF section of its GPP string, and its Google Additional Consent
 * string, each against the notice the visitor answered and the decisions as recorded.
 */
export function createDecisionStringChecks(deps: { tcStrings: TcStringChecker; clock: Clock }) {
  const { clock } = deps;

  /** Where a TC string came from: the decision's `tcString`, or the EU TCF section of its `gppString`. */
  const TC_STRING_SOURCES = {
    tcString: { path: '/tcString', sent: 'was sent', prefix: '' },
    gppTcfSection: {
      path: '/gppString',
      sent: 'carries an EU TCF section (tcfeuv2)',
      prefix: 'its EU TCF section (tcfeuv2) ',
    },
  } as const;

  /**
   * A decision's TC string against the notice it answered (that version's TCF settings, none: 422)
   * and the decisions recorded for it: the tcf module's rules, each refusal naming its rule, at the
   * member that carried the string (a GPP string's EU TCF section is a TC string and gets the same
   * rules, so GPP is no way around them). Only called when a string was sent; decisions without one
   * pay nothing. Reads only what is in memory (the notice, the clock; the vendor list's policy
   * version once per version and process).
   */
  async function checkedTcString(
    notice: VisitorConfig,
    value: string,
    decisions: TcStringContext['decisions'],
    source: keyof typeof TC_STRING_SOURCES = 'tcString',
  ): Promise<CheckedTcf> {
    const { path, sent, prefix } = TC_STRING_SOURCES[source];
    if (!notice.tcf) {
      throw validationFailed([
        {
          path,
          message: `${sent}, but configVersion ${notice.configVersion} of this channel has no TCF settings`,
        },
      ]);
    }
    const checked = await deps.tcStrings.check(value, {
      cmpId: notice.tcf.cmpId,
      vendorIds: notice.tcf.vendorIds,
      consentMaxAgeDays: notice.consentMaxAgeDays,
      purposes: notice.purposes,
      decisions,
      publisherRestrictions: notice.tcf.publisherRestrictions ?? [],
      channel: {
        // The version the visitor's config carried (regional-config.ts): pinned, or the release.
        cmpVersion: notice.tcf.cmpVersion ?? TCF_RELEASE,
        publisherCountryCode: notice.tcf.publisherCountryCode,
        purposeOneTreatment: notice.tcf.purposeOneTreatment,
        languages: notice.languages,
        vendors: notice.tcf.vendors,
      },
      now: clock.now(),
    });
    if (checked.problems !== undefined) {
      throw validationFailed(
        checked.problems.map(({ message, rule }) =>
          rule
            ? { path, code: rule, message: `${prefix}${message}` }
            : { path, message: `${prefix}${message}` },
        ),
      );
    }
    return checked.tcf;
  }

  /**
   * A decision's Google Additional Consent string, kept in the evidence beside the TC string it came
   * with: refused (422) without one, on a notice without googleAdditionalConsent, in another format
   * than version 2, or naming a provider the notice does not list.
   */
  function withAddtlConsent(notice: VisitorConfig, tcf: CheckedTcf | null, value: string): CheckedTcf {
    const providerIds = notice.tcf?.googleAdditionalConsent?.providerIds ?? null;
    const problems =
      tcf === null
        ? [{ rule: 'ac_not_expected' as const, message: 'was sent without a tcString' }]
        : acStringProblems(value, providerIds);
    if (problems.length > 0 || tcf === null) {
      throw validationFailed(
        problems.map(({ rule, message }) => ({ path: '/addtlConsent', code: rule, message })),
      );
    }
    return { ...tcf, addtlConsent: value };
  }

  return { checkedTcString, withAddtlConsent };
}
