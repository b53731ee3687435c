import type { IncomingHttpHeaders } from 'node:http';
import type { Static } from '@sinclair/typebox';
import type { Clock } from '../../platform/clock.ts';
import { validationFailed } from '../../platform/http/errors.ts';
import type { KeyedWrite } from '../../platform/idempotency/idempotency.scope.ts';
import type { VisitorConfig } from '../channels/channels.service.ts';
import type {
  DecisionOutcome,
  EvidenceRow,
  EvidenceService,
  EvidenceTcf,
  RecordedEvent,
  RecordInput,
} from '../evidence/evidence.service.ts';
import { createGppDecoder, type GppDecoder, gppDecodeError, tcfEuSection } from '../gpp/gpp.service.ts';
import type { IdentityService } from '../identity/identity.service.ts';
import type { AppCaller } from '../sites/sites.schemas.ts';
import type { Site, SitesService } from '../sites/sites.service.ts';
import { visitorRegime } from '../tcf/settings/tcf-settings.service.ts';
import type { TcStringContext, TcStringProblem } from '../tcf/tc-strings/tc-string.schemas.ts';
import type { PreferencesBody } from './consent.schemas.ts';
import { createDecisionStringChecks } from './decision-strings.ts';
import { decisionOutcome, resolveDecisions } from './decisions.ts';
import { importedFrom } from './imported-decision.ts';
import { preferencesAnswer } from './preferences-receipt.ts';

export type PreferencesInput = Static<typeof PreferencesBody>;

/** What the request itself tells about a decision (never from the body). */
export interface RequestFacts {
  /** The browser's registered Origin; null on an app channel, whose calls carry `app` instead. */
  origin: string | null;
  app: AppCaller | null;
  userAgent: string | null;
  ipPrefix: string | null;
  /** Where the visitor is (the sites service resolves the region from it). */
  location: { declared: string | undefined; headers: IncomingHttpHeaders; ip: string | undefined };
  /** The request carried `Sec-GPC: 1`: the browser's Global Privacy Control signal. */
  secGpc: boolean;
}

/** A recorded decision: its event, how the analytics count it, and the 201 that answers it. */
export interface RecordedDecision extends RecordedEvent {
  outcome: DecisionOutcome;
  answer: ReturnType<typeof preferencesAnswer>;
}

/**
 * Checks a decision's TC string: the tcf module's (tc-strings/tc-string.ts, wired in services.ts). The summary
 * the evidence keeps, or why the string is refused.
 */
export interface TcStringChecker {
  check(
    value: string,
    context: TcStringContext,
  ): Promise<{ tcf: EvidenceTcf; problems?: never } | { problems: TcStringProblem[] }>;
}

/**
 * A visitor's decision, from the request to the evidence event (docs/decisions/sites-and-evidence.md):
 * the notice it answered, its decisions as recorded, its GPP and TC strings checked, its outcome
 * for the analytics (`decisionOf`), then its commit: the evidence module's one consent-write
 * statement, which stores the event with the key's record when the request has an Idempotency-Key.
 */
export function createConsentService(deps: {
  sites: Pick<SitesService, 'noticeAnswered' | 'regionOf'>;
  evidence: Pick<EvidenceService, 'event' | 'writeEvents'>;
  tcStrings: TcStringChecker;
  /** Signed-in visitors: whose account an identity token names. */
  identity: Pick<IdentityService, 'accountOf'>;
  clock: Clock;
  baseUrl: string;
  /** The GPP decoders (gpp.service.ts); by default its own, started on the first GPP string. */
  gppDecoder?: GppDecoder;
}) {
  const { sites, evidence, clock, baseUrl } = deps;
  const gppDecoder = deps.gppDecoder ?? createGppDecoder();

  /** The receipt address (docs/receipts.md) only the visitor receives (its token is a capability). */
  const receiptUrl = (event: RecordedEvent): string =>
    `${baseUrl}/v1/public/receipts/${event.row.id}?token=${encodeURIComponent(event.receiptToken)}`;

  /**
   * A decision's GPP string against the notice it answered: only a channel with a gppCmpId uses GPP
   * (its SDK provides the GPP API); elsewhere a string is a 422 and is never decoded. Decisions
   * without one pay nothing. Returns its EU TCF section (a TC string), if it has one: the TC string
   * checks judge it once the decisions are resolved (checkedTcString), as they judge a `tcString`.
   */
  async function checkGppString(site: Site, notice: VisitorConfig, value: string): Promise<string | null> {
    if (notice.gppCmpId === null) {
      throw validationFailed([
        {
          path: '/gppString',
          message: `was sent, but configVersion ${notice.configVersion} of this channel has no gppCmpId: it does not use GPP`,
        },
      ]);
    }
    const { organizationId, siteKey } = site.channel;
    const problem = await gppDecodeError(gppDecoder, value, { organizationId, siteKey });
    if (problem) throw validationFailed([{ path: '/gppString', message: problem }]);
    return tcfEuSection(value);
  }

  const { checkedTcString, withAddtlConsent } = createDecisionStringChecks({
    tcStrings: deps.tcStrings,
    clock,
  });

  /**
   * A decision as the evidence records it, from the request: whose it is (an identity token names
   * an account), the notice it answered, its decisions resolved for the visitor's region and GPC,
   * its GPP and TC strings checked against them, and its outcome. Writes nothing; a refusal throws.
   */
  async function decisionOf(site: Site, input: PreferencesInput, facts: RequestFacts): Promise<RecordInput> {
    // Only a decision sent with a token pays for its check (the keys are cached per channel).
    const accountId =
      input.identityToken === undefined
        ? null
        : await deps.identity.accountOf(site.channel, input.identityToken);
    const notice = await sites.noticeAnswered(site, input.configVersion);
    // Only a decision that says it was imported pays for the check (docs/guides/keep-the-choice.md).
    const imported =
      input.source === 'import' || input.importedFrom !== undefined
        ? importedFrom(notice, input, clock.now())
        : undefined;
    const gppTcfSection =
      input.gppString === undefined ? null : await checkGppString(site, notice, input.gppString);
    const region = sites.regionOf(site, facts.location);
    // The regime of the notice the visitor answered, where the visitor was.
    const regime = visitorRegime(notice.regionRules, region.code, notice.tcf);
    const gpc = (input.gpc ?? false) || facts.secGpc;
    const source = input.source ?? 'banner';
    const decisions = resolveDecisions(notice, {
      decisions: input.decisions,
      gpc,
      // Where the visitor may opt back in (opt-out regions), an explicit choice wins over the
      // signal; the SDK's own record of the signal (source gpc), and opt-in regions, deny.
      explicitChoiceWins: regime === 'opt-out' && source !== 'gpc',
    });
    // Checked against the decisions as recorded: a string must not grant what they deny.
    if (gppTcfSection !== null) await checkedTcString(notice, gppTcfSection, decisions, 'gppTcfSection');
    const checkedTcf =
      input.tcString === undefined ? null : await checkedTcString(notice, input.tcString, decisions);
    const tcf =
      input.addtlConsent === undefined
        ? checkedTcf
        : withAddtlConsent(notice, checkedTcf, input.addtlConsent);
    return {
      channel: site.channel,
      // A signed-in visitor's decision is the account's: its id, never stored, is pseudonymized.
      subjectKind: accountId === null ? 'device' : 'account',
      subjectId: accountId ?? input.subjectId,
      decisions,
      configVersion: notice.configVersion,
      policyVersion: notice.privacyPolicy.version,
      source,
      language: input.language ?? null,
      gpc,
      origin: facts.origin,
      app: facts.app,
      userAgent: facts.userAgent,
      ipPrefix: facts.ipPrefix,
      region,
      regime,
      gppString: input.gppString ?? null,
      tcString: input.tcString ?? null,
      tcf,
      // Only a GPC decision can have honoured the signal.
      gpcHonoredShown: gpc && input.gpcHonoredShown === true,
      // Computed once, here, from the notice answered: the analytics statement reads it.
      outcome: decisionOutcome(notice.purposes, decisions),
      ...(imported && { importedFrom: imported }),
    };
  }

  return {
    /** Stops the GPP decoders (the app is closing). */
    close: () => gppDecoder.close(),

    /**
     * Records a visitor's decision, and says how to answer it: null when the request's
     * Idempotency-Key was already held, in which case nothing was written and the idempotency layer
     * replays the first answer.
     */
    async recordPreferences(
      site: Site,
      input: PreferencesInput,
      facts: RequestFacts,
      key: KeyedWrite | null,
    ): Promise<RecordedDecision | null> {
      const decision = await decisionOf(site, input, facts);
      // The event (its id, receipt and hash) and so the answer exist before anything is stored.
      const event = await evidence.event(decision);
      const recorded = {
        ...event,
        outcome: decision.outcome,
        answer: preferencesAnswer(event, receiptUrl(event)),
      };
      // The commit: one statement, shared with the concurrent writes of its group
      // (evidence/consent-write.sql.ts), stores the event, its webhook outbox row, the subject's
      // consent state and the analytics counts. With an Idempotency-Key the key's record, holding
      // this 201, is in that statement too: a retry finds both or neither, and a key already held
      // writes nothing.
      if (key === null) {
        await evidence.writeEvents([event.row], null);
        return recorded;
      }
      const committed = await key.commit(201, recorded.answer, (record) =>
        evidence.writeEvents([event.row], record),
      );
      return committed === 'committed' ? recorded : null;
    },

    /**
     * Records a decision handed over from a sibling domain (docs/guides/keep-the-choice.md): the
     * visitor's own decision `handed`, again, on the target origin of `facts`, for the same subject
     * (its pseudonym: the service never knew the raw id), with `handoff: {fromOrigin, eventId}`. The
     * decisions are the ones recorded then, for the notice they answered; where and how the visitor
     * is now (origin, region, user agent) are this request's. Written before this resolves.
     */
    async recordHandoff(
      site: Site,
      handed: EvidenceRow,
      from: { fromOrigin: string } | { fromApp: string },
      facts: RequestFacts,
    ): Promise<RecordedDecision> {
      const notice = await sites.noticeAnswered(site, handed.configVersion as number);
      const region = sites.regionOf(site, facts.location);
      const decisions = handed.decisions ?? {};
      const decision: RecordInput = {
        channel: site.channel,
        subjectKind: handed.subjectKind ?? 'device',
        subjectId: '',
        subjectPseudonym: handed.subjectPseudonym as string,
        decisions,
        configVersion: notice.configVersion,
        policyVersion: notice.privacyPolicy.version,
        source: 'handoff',
        language: handed.language,
        gpc: handed.gpc ?? false,
        origin: facts.origin,
        userAgent: facts.userAgent,
        ipPrefix: facts.ipPrefix,
        region,
        regime: visitorRegime(notice.regionRules, region.code, notice.tcf),
        gppString: null,
        tcString: null,
        tcf: null,
        outcome: decisionOutcome(notice.purposes, decisions),
        app: facts.app,
        handoff: { ...from, eventId: handed.id },
      };
      const event = await evidence.event(decision);
      await evidence.writeEvents([event.row], null);
      return { ...event, outcome: decision.outcome, answer: preferencesAnswer(event, receiptUrl(event)) };
    },
  };
}

export type ConsentService = ReturnType<typeof createConsentService>;
