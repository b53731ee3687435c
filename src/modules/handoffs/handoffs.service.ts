import { createHash } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { AppError, validationFailed } from '../../platform/http/errors.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { originMatches } from '../channels/origins.service.ts';
import type { ConsentService, RequestFacts } from '../consent/consent.service.ts';
import type { EvidenceService } from '../evidence/evidence.service.ts';
import type { AppCaller } from '../sites/sites.schemas.ts';
import type { Site, SitesService } from '../sites/sites.service.ts';
import { checkedWebViewTarget, decisionForPage } from './app-handoffs.ts';
import { handoffsRepo } from './handoffs.repo.ts';
import type { HandoffRow } from './handoffs.tables.ts';
import { choiceOf, type EvidenceRow, holds } from './visitor-choice.ts';

/** How long a token can be redeemed: long enough for the next page to load, no longer. */
export const HANDOFF_TTL_MS = 120_000;
/** Redeemed rows are kept this long at most: longer than any decision they lead to can hold (395 days). */
const REDEEMED_KEPT_MS = 400 * 86_400_000;
/** 43 base62 characters: about 256 random bits. */
const TOKEN_LENGTH = 43;
const TOKEN = /^[0-9A-Za-z]{43}$/;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** One answer for every token that cannot be redeemed, so none tells an attacker more than another. */
const handoffNotFound = () =>
  new AppError(
    'handoff_not_found',
    'No handoff can be redeemed with this token here: it is unknown, used, expired, of another site or for another origin, or the visitor has no decision that still holds. Ask the visitor, or start over from the page they came from.',
  );

/** What a redeem answers: the choice that holds on the target now, and whether it was handed over. */
export interface RedeemedChoice {
  /** The decision's event: the handed one (the visitor's own, on the origin they came from) or the target's own. */
  decision: EvidenceRow;
  /** True when the handed decision was recorded on the target (source "handoff"). */
  recorded: boolean;
}

interface HandoffsDeps {
  store: Pick<Store, 'db' | 'tx'>;
  clock: Clock;
  evidence: Pick<EvidenceService, 'pseudonymize' | 'newestDecisionOf' | 'findEvent'>;
  consent: Pick<ConsentService, 'recordHandoff'>;
  /** The page's site of an app handoff (docs/guides/apps.md). */
  sites: Pick<SitesService, 'resolve' | 'domainOfOrigin'>;
}

const channelRef = (site: Site) => site.channel;

/** Stores a new token (its hash only) for the visitor `subjectId` of `from`, to redeem on `page`. */
async function issue(
  deps: HandoffsDeps,
  from: Site,
  page: Site,
  subjectId: string,
  target: string,
  source: { fromOrigin: string } | { fromApp: string },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBase62(TOKEN_LENGTH);
  const now = deps.clock.now();
  const row: HandoffRow = {
    organizationId: page.channel.organizationId,
    tokenHash: tokenHash(token),
    environment: page.channel.environment,
    channelId: page.channel.id,
    subjectPseudonym: await deps.evidence.pseudonymize(from.channel.organizationId, subjectId),
    fromOrigin: 'fromOrigin' in source ? source.fromOrigin : null,
    fromApp: 'fromApp' in source ? source.fromApp : null,
    fromChannelId: 'fromApp' in source ? from.channel.id : null,
    targetOrigin: target,
    createdAt: now,
    expiresAt: new Date(now.getTime() + HANDOFF_TTL_MS),
    redeemedAt: null,
    redeemedPseudonym: null,
    handedEventId: null,
  };
  await deps.store.tx((tx) => handoffsRepo.insert(tx, row));
  return { token, expiresAt: row.expiresAt };
}

/**
 * The redeem of an app's token on its WebView page: the app visitor's newest decision on the app
 * channel, as the page's notice decides it (decisionForPage), unless the page visitor's own is
 * newer. Recorded on the page (source "handoff", handoff.fromApp); the token's row then links the
 * page visitor to that event, so the choice travels on from the page as any recorded one does.
 */
async function redeemFromApp(
  deps: HandoffsDeps,
  site: Site,
  row: HandoffRow,
  input: { token: string; subjectId: string },
  facts: RequestFacts,
): Promise<RedeemedChoice> {
  const { store, clock, evidence } = deps;
  const hash = row.tokenHash;
  const now = clock.now();
  const redeemedPseudonym = await evidence.pseudonymize(site.channel.organizationId, input.subjectId);
  const appChoice = await evidence.newestDecisionOf(
    site.channel,
    row.fromChannelId as string,
    row.subjectPseudonym,
  );
  const forPage = appChoice && holds(clock, site, appChoice) ? decisionForPage(site, appChoice) : null;
  const own = forPage ? await choiceOf(deps, site, redeemedPseudonym) : null;
  const ownWins = own !== null && forPage !== null && own.recordedAt > forPage.recordedAt;
  const spent = await store.tx((tx) =>
    handoffsRepo.redeem(tx, channelRef(site), hash, {
      targetOrigin: row.targetOrigin,
      now,
      redeemedPseudonym,
      handedEventId: null,
    }),
  );
  if (!spent || !forPage) throw handoffNotFound();
  if (ownWins) return { decision: own as EvidenceRow, recorded: false };
  try {
    const recorded = await deps.consent.recordHandoff(
      site,
      forPage,
      { fromApp: row.fromApp as string },
      facts,
    );
    await store.tx((tx) => handoffsRepo.setHanded(tx, channelRef(site), hash, recorded.row.id));
  } catch (error) {
    await store.tx((tx) => handoffsRepo.release(tx, channelRef(site), hash));
    throw error;
  }
  return { decision: forPage, recorded: true };
}

/**
 * Handing a visitor's choice over between the channel's registrable domains
 * (docs/guides/keep-the-choice.md): a token asked for on one origin, redeemed once on another
 * within HANDOFF_TTL_MS; the redeem records the decision again, for the same subject, on the target.
 */
export function createHandoffsService(deps: HandoffsDeps) {
  const { store, clock, evidence } = deps;

  return {
    /**
     * A token for the visitor on `origin` (the request's, registered) to take their choice to
     * `target`: a registered origin of the channel (wildcards honoured) on another registrable domain,
     * on a channel with crossDomain on. Only the token's hash is stored.
     */
    async create(
      site: Site,
      input: { subjectId: string; target: string },
      origin: string,
    ): Promise<{ token: string; expiresAt: Date }> {
      if (!site.config.crossDomain) {
        throw validationFailed(
          [{ path: '/target', message: 'the channel hands no choice over: its crossDomain is false' }],
          'The channel hands no choice over between domains: set its crossDomain to true.',
        );
      }
      // originMatches takes only an exact origin (scheme://host[:port]), so the URL below parses.
      if (!site.origins.some((registered) => originMatches(registered, input.target))) {
        throw validationFailed([
          { path: '/target', message: 'must be a registered origin of the channel, as scheme://host[:port]' },
        ]);
      }
      const target = new URL(input.target).origin;
      if (deps.sites.domainOfOrigin(target) === deps.sites.domainOfOrigin(origin)) {
        throw validationFailed([
          {
            path: '/target',
            message: `is on the same registrable domain as ${origin}: nothing to hand over (a cookieDomain shares the choice there)`,
          },
        ]);
      }
      return issue(deps, site, site, input.subjectId, target, { fromOrigin: origin });
    },

    /**
     * A token for the visitor of an app (`app`, checked on its app channel) to take their choice
     * into a WebView page on `target`: a registered origin of the web channel `targetSiteKey` of the
     * same organization and environment, which redeems it (docs/guides/apps.md).
     */
    async createForApp(
      site: Site,
      input: { subjectId: string; target: string; targetSiteKey: string },
      app: AppCaller,
    ): Promise<{ token: string; expiresAt: Date }> {
      const page = await deps.sites.resolve(input.targetSiteKey);
      const target = checkedWebViewTarget(site, page, input.target);
      return issue(deps, site, page, input.subjectId, target, { fromApp: app.appId });
    },

    /**
     * Redeems a token on its target origin (`facts.origin`) for the visitor `subjectId` there. The
     * token is spent by one UPDATE (a concurrent second redeem finds it used: 404). The visitor's
     * choice on the origin it was asked from is recorded again on the target (source "handoff"),
     * unless the target visitor's own decision is newer: then that one holds, nothing is recorded,
     * and it is the answer. Every token that cannot be redeemed is one 404 handoff_not_found.
     */
    async redeem(
      site: Site,
      input: { token: string; subjectId: string },
      facts: RequestFacts,
    ): Promise<RedeemedChoice> {
      if (!TOKEN.test(input.token)) throw handoffNotFound();
      const hash = tokenHash(input.token);
      const now = clock.now();
      const row = await handoffsRepo.find(store.db, channelRef(site), hash);
      if (!row || row.redeemedAt !== null || row.expiresAt <= now || row.targetOrigin !== facts.origin) {
        throw handoffNotFound();
      }
      if (row.fromApp !== null) return redeemFromApp(deps, site, row, input, facts);
      const redeemedPseudonym = await evidence.pseudonymize(site.channel.organizationId, input.subjectId);
      const found = await choiceOf(deps, site, row.subjectPseudonym);
      const handed = found && holds(clock, site, found) ? found : null;
      const own = handed ? await choiceOf(deps, site, redeemedPseudonym) : null;
      const ownWins =
        own !== null && handed !== null && (own.id === handed.id || own.recordedAt > handed.recordedAt);
      const spent = await store.tx((tx) =>
        handoffsRepo.redeem(tx, channelRef(site), hash, {
          targetOrigin: row.targetOrigin,
          now,
          redeemedPseudonym,
          handedEventId: handed && !ownWins ? handed.id : null,
        }),
      );
      if (!spent || !handed) throw handoffNotFound();
      if (ownWins) return { decision: own as EvidenceRow, recorded: false };
      try {
        await deps.consent.recordHandoff(site, handed, { fromOrigin: row.fromOrigin as string }, facts);
      } catch (error) {
        // Not recorded: the token is given back, so the SDK's retry can still redeem it.
        await store.tx((tx) => handoffsRepo.release(tx, channelRef(site), hash));
        throw error;
      }
      return { decision: handed, recorded: true };
    },

    /** Deletes handoffs no longer needed, at most `limit` (the worker's `handoffs.purge`). */
    purge(limit = 1000): Promise<number> {
      const now = clock.now();
      return store.tx((tx) => handoffsRepo.purge(tx, now, new Date(now.getTime() - REDEEMED_KEPT_MS), limit));
    },
  };
}

export type HandoffsService = ReturnType<typeof createHandoffsService>;
