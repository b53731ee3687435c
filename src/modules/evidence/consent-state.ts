import type { Clock } from '../../platform/clock.ts';
import type { Db, DbScope, Store } from '../../platform/db/store.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { notFound } from '../../platform/http/errors.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import { consentStateRepo, type StatePurposeRow } from './consent-state.repo.ts';
import type { EvidenceScope } from './evidence.repo.ts';
import { maskPseudonym } from './pseudonym.ts';

const DAY_MS = 24 * 3600_000;
/** Events per backfill transaction: short enough not to hold locks long, big enough to be quick. */
export const BACKFILL_BATCH = 5_000;

/** The newest of a subject's state rows: the event of its newest decision. */
const newestRow = (rows: StatePurposeRow[]) =>
  rows.reduce((a, b) =>
    a.recordedAt.getTime() > b.recordedAt.getTime() ||
    (a.recordedAt.getTime() === b.recordedAt.getTime() && a.eventId > b.eventId)
      ? a
      : b,
  );

/**
 * A subject's consent state on a channel, as `GET /v1/consent-state` shows it: `tcString` as tcf.js
 * would serve it now, `tcStringRecorded` the one the evidence keeps.
 */
export function presentState(
  channelId: string,
  rows: StatePurposeRow[],
  now: Date,
  strings: { tcString: string | null; tcStringRecorded: string | null } = {
    tcString: null,
    tcStringRecorded: null,
  },
) {
  const sorted = [...rows].sort((a, b) => a.purposeKey.localeCompare(b.purposeKey));
  // The newest event among the purposes gives lastRecordedAt and where the subject was then.
  const newest = newestRow(rows);
  const expiresAt = new Date(newest.recordedAt.getTime() + newest.consentMaxAgeDays * DAY_MS);
  return {
    channelId,
    subject: { pseudonym: maskPseudonym(newest.subjectPseudonym) },
    purposes: Object.fromEntries(
      sorted.map((r) => [
        r.purposeKey,
        {
          decision: r.decision,
          recordedAt: apiDate(r.recordedAt),
          eventId: r.eventId,
          configVersion: r.configVersion,
          source: r.source,
        },
      ]),
    ),
    lastRecordedAt: apiDate(newest.recordedAt),
    expiresAt: apiDate(expiresAt),
    expired: now.getTime() >= expiresAt.getTime(),
    region: newest.region,
    regime: newest.regime,
    tcString: strings.tcString,
    tcStringRecorded: strings.tcStringRecorded,
  };
}

export type ConsentStateView = ReturnType<typeof presentState>;

/**
 * What a signed-in visitor's page is told of the account's choice (docs/guides/signed-in-visitors.md):
 * the newest decision per purpose, and the version and time of the newest of them.
 */
export function presentChoice(
  rows: StatePurposeRow[],
  strings: { tcString: string | null; addtlConsent: string | null } = { tcString: null, addtlConsent: null },
) {
  const newest = newestRow(rows);
  const sorted = [...rows].sort((a, b) => a.purposeKey.localeCompare(b.purposeKey));
  return {
    purposes: Object.fromEntries(sorted.map((r) => [r.purposeKey, r.decision])),
    configVersion: newest.configVersion,
    recordedAt: apiDate(newest.recordedAt) as string,
    tcString: strings.tcString,
    addtlConsent: strings.addtlConsent,
  };
}

export type AccountChoice = ReturnType<typeof presentChoice>;

/** Whose state a read asks for: devices by their subjectId, accounts by the site's account id. */
export type SubjectKind = 'device' | 'account';

/**
 * Reads of the consent state (docs/guides/check-consent.md) and the backfill of events older than its table.
 * Until the backfill is done the answers are computed from the evidence (the same rows, slower), so a
 * lookup is never wrong while it runs.
 */
export function createConsentStateReader(deps: {
  store: Store;
  clock: Clock;
  /** A subject's pseudonym: devices' and accounts' are keyed apart (pseudonym.ts). */
  pseudonymize: (organizationId: string, id: string, kind: SubjectKind) => Promise<string>;
  findChannel: ChannelsService['findChannel'];
  /**
   * Recorded TC strings of subjects on a channel as tcf.js would serve them now (the tcf module's
   * re-encoding against the channel's current vendors and vendor list), in order; null where it
   * would serve none. Absent: the recorded strings are served as they are.
   */
  servedTcStrings?: (
    scope: EvidenceScope,
    channelId: string,
    recorded: Array<{ tcString: string; decisions: Record<string, 'granted' | 'denied'> }>,
  ) => Promise<Array<string | null>>;
}) {
  const { store, clock } = deps;

  /** Each subject's recorded string and the one served now, by pseudonym. */
  async function tcStringsOf(
    scope: EvidenceScope,
    channelId: string,
    recorded: Map<string, string>,
    bySubject: Map<string, StatePurposeRow[]>,
  ) {
    const subjects = [...recorded.keys()];
    const items = subjects.map((p) => ({
      tcString: recorded.get(p) as string,
      decisions: Object.fromEntries((bySubject.get(p) ?? []).map((r) => [r.purposeKey, r.decision])),
    }));
    const served =
      deps.servedTcStrings && items.length > 0
        ? await deps.servedTcStrings(scope, channelId, items)
        : items.map((i) => i.tcString);
    return new Map(subjects.map((p, i) => [p, { tcString: served[i], tcStringRecorded: items[i].tcString }]));
  }
  let backfilled = false;

  /** The state rows of the pseudonyms on the channel, from the table once the backfill is done. */
  async function stateRows(db: Db, scope: EvidenceScope, channelId: string, pseudonyms: string[]) {
    backfilled ||= await consentStateRepo.backfillDone(store.db);
    const read = backfilled ? consentStateRepo.read : consentStateRepo.replay;
    return read(db, scope, channelId, [...new Set(pseudonyms)]);
  }

  return {
    /**
     * The state of each subject (null: no decision on the channel), in input order; 404 for an
     * unknown channel. `kind` says whose ids they are: devices' subjectIds or accounts' ids.
     */
    async states(
      scope: EvidenceScope,
      channelId: string,
      subjectIds: string[],
      kind: SubjectKind = 'device',
    ): Promise<Array<ConsentStateView | null>> {
      const pseudonyms = await Promise.all(
        subjectIds.map((id) => deps.pseudonymize(scope.organizationId, id, kind)),
      );
      // The API's state reads and lookups read the replica (DATABASE_READ_URL), which may lag a little;
      // as one of the organization's heavy reads (up to 100 subjects), so they take turns with other
      // tenants' and never hold the store from visitors' decisions.
      const rows = await store.heavyReads.turn(scope.organizationId, () =>
        stateRows(store.replica, scope, channelId, pseudonyms),
      );
      if (rows.length === 0 && !(await deps.findChannel(scope.organizationId, scope.environment, channelId)))
        throw notFound('channel');
      const bySubject = new Map<string, StatePurposeRow[]>();
      for (const row of rows) {
        const list = bySubject.get(row.subjectPseudonym);
        if (list) list.push(row);
        else bySubject.set(row.subjectPseudonym, [row]);
      }
      // The state's own TC strings once backfilled; before, the replay walks the subjects' events.
      const recorded =
        bySubject.size === 0
          ? new Map<string, string>()
          : backfilled
            ? new Map(
                [...bySubject].flatMap(([p, subjectRows]) =>
                  subjectRows[0].tcString ? [[p, subjectRows[0].tcString] as const] : [],
                ),
              )
            : await store.heavyReads.turn(scope.organizationId, () =>
                consentStateRepo.newestTcStrings(store.replica, scope, channelId, [...bySubject.keys()]),
              );
      const tcStrings = await tcStringsOf(scope, channelId, recorded, bySubject);
      const now = clock.now();
      return pseudonyms.map((p) => {
        const subjectRows = bySubject.get(p);
        return subjectRows ? presentState(channelId, subjectRows, now, tcStrings.get(p)) : null;
      });
    },

    /**
     * An account's current choice on a channel the caller knows exists (the public identify call), or
     * null. On a TCF channel it carries the TC string made with the account's newest decision (null
     * when that decision had none: made where the TCF does not apply), and the Additional Consent
     * string made with it, so another device applies the same strings; never an older decision's
     * strings, which would not match the purposes.
     */
    async accountChoice(
      db: DbScope,
      channel: EvidenceScope & { id: string; tcf?: unknown },
      accountId: string,
    ): Promise<AccountChoice | null> {
      const pseudonym = await deps.pseudonymize(channel.organizationId, accountId, 'account');
      // The visitor's own page may just have recorded the choice: the primary, never a lagging replica.
      const rows = await stateRows(db.read, channel, channel.id, [pseudonym]);
      if (rows.length === 0) return null;
      const strings = channel.tcf
        ? await consentStateRepo.tcStringOfEvent(db.read, channel, channel.id, pseudonym, newestRow(rows))
        : undefined;
      return presentChoice(rows, strings);
    },

    /**
     * Runs the backfill, one short transaction per batch, until it is done or `budgetMs` has passed
     * (the worker calls it every minute, so no job holds its lease for an hour on a big database);
     * returns the events it took and whether it is done. Idle once done: one read of the progress row.
     */
    async backfill(options: { batch?: number; budgetMs?: number } = {}) {
      const { batch = BACKFILL_BATCH, budgetMs = Number.POSITIVE_INFINITY } = options;
      const started = Date.now();
      let total = 0;
      for (;;) {
        const { events, done } = await store.tx((tx) => consentStateRepo.backfillBatch(tx, batch));
        total += events;
        if (done || Date.now() - started >= budgetMs) return { events: total, done };
      }
    },
  };
}
