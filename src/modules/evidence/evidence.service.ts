import { createHash, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import type { ClockCheck } from '../../platform/clock-check.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { DbScope, Store } from '../../platform/db/store.ts';
import { notFound, validationFailed } from '../../platform/http/errors.ts';
import { newTimeOrderedId, randomBase64url } from '../../platform/ids.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import type { Regime } from '../regions/regions.schemas.ts';
import type { ResolvedRegion } from '../regions/regions.service.ts';
import { createConsentStateReader } from './consent-state.ts';
import type { OutboxJob } from './consent-write.sql.ts';
import {
  eventCore,
  evidenceEventBody,
  gpcHonoredMember,
  gppMembers,
  originMembers,
  regionMembers,
  subjectKindMember,
  tcfMembers,
} from './evidence.presenters.ts';
import { type EvidenceFilters, type EvidenceScope, evidenceRepo } from './evidence.repo.ts';
import type {
  Decision,
  DecisionOutcome,
  EvidenceApp,
  EvidenceHandoff,
  EvidenceImport,
  EvidenceRow,
  EvidenceTcf,
} from './evidence.tables.ts';
import { createEvidenceWriter } from './evidence-writer.ts';
import { evidenceCanonicalBytes, leafHashOf } from './leaf-hash.ts';
import { createPartitionsAhead } from './partitions.ts';
import { accountPseudonymOf, pseudonymOf } from './pseudonym.ts';
import { purgeExpiredEvidence } from './retention.ts';
import type { RetentionObserver } from './retention-locks.ts';

/**
 * The webhook outbox (docs/decisions/webhooks.md), built by the webhooks module: the job that sends a
 * delivery's first attempt. The consent write's statement inserts consent.recorded events, their deliveries
 * and these jobs itself (consent-write.sql.ts), in the transaction that stores the evidence.
 */
export interface EventOutbox {
  attemptJob: OutboxJob;
}

/** A decision to record, already validated against the notice it answered (see the sites module). */
export interface RecordInput {
  channel: { organizationId: string; id: string; environment: EvidenceScope['environment'] };
  /**
   * Whose decision: the visitor's device (subjectId is the SDK's id) or a signed-in visitor's
   * account (subjectId is the account id from a verified identity token). Each kind has its own
   * pseudonyms (pseudonym.ts), so a device can never pose as an account.
   */
  subjectKind: 'device' | 'account';
  /** The raw id of that subject: pseudonymized here and never stored, returned or logged. */
  subjectId: string;
  /**
   * Instead of subjectId, the pseudonym itself: a decision handed over from a sibling domain is
   * recorded for the subject of the event it hands over, whose raw id the service never knew.
   */
  subjectPseudonym?: string;
  decisions: Record<string, Decision>;
  configVersion: number;
  policyVersion: string;
  source: NonNullable<EvidenceRow['source']>;
  language: string | null;
  gpc: boolean;
  origin: string | null;
  userAgent: string | null;
  ipPrefix: string | null;
  /** Where the visitor was, as the service resolved it, and the regime that applied there. */
  region: ResolvedRegion;
  regime: Regime;
  /** The IAB GPP string the SDK sent with the decision, already checked to decode; or null. */
  gppString: string | null;
  /** The IAB TC string sent with the decision, already checked, and what was decoded of it; or both null. */
  tcString: string | null;
  tcf: EvidenceTcf | null;
  /** The page showed that the visitor's GPC signal was honoured (only then true). */
  gpcHonoredShown?: boolean;
  /** How the consent analytics count the decision (computed by the consent module, stored as is). */
  outcome: DecisionOutcome;
  /** Source handoff: the sibling domain's origin (or the app's id) and the event handed over. */
  handoff?: EvidenceHandoff;
  /** Source import: the previous CMP's cookie the decision was imported from. */
  importedFrom?: EvidenceImport;
  /** An app channel's decision: the app that sent it (origin is null then). */
  app?: EvidenceApp | null;
}

/** A list's filters as the API takes them: the subject by its raw id, or as the subject of an event. */
export type ListFilters = Omit<EvidenceFilters, 'subjectPseudonym'> & {
  subjectId?: string;
  sameSubjectAs?: string;
};

export const USER_AGENT_MAX = 512;

/**
 * The largest evidence event the service records, in bytes of its canonical form (the JSON its
 * receipt hash covers; a read, an export line and the webhook payload are the same size give or
 * take its receipt). Every part of an event is bounded on its own (the TC string's summary by the
 * channel's vendors, the strings by the request schema), and the largest a real decision makes is
 * about 40 KiB (1,000 vendors in every vendor list of a 10,000-character TC string, a GPP string,
 * 200 decisions); this bound holds whatever a future field adds, so that no short request ever
 * becomes a large record stored, exported and sent to every webhook. Larger: 422.
 */
export const MAX_EVIDENCE_EVENT_BYTES = 65_536;

function eventTooLarge(bytes: number) {
  return validationFailed([
    {
      path: '',
      code: 'evidence_event_too_large',
      message: `would be recorded as an evidence event of ${bytes} bytes, more than the ${MAX_EVIDENCE_EVENT_BYTES} bytes an event may hold`,
    },
  ]);
}

/**
 * A recorded event and the raw receipt token (docs/receipts.md) that only the visitor receives: the
 * store keeps its SHA-256 alone. The token names the organization (`<organizationId>.<secret>`) so
 * the public receipt route finds the event by its primary key; the secret is 144 random bits.
 * The token travels beside the row, not on it: the row keeps the one shape every event has (the
 * write path's hot functions see a single hidden class), and nothing that copies or serializes
 * the row can carry the token along.
 */
export interface RecordedEvent {
  row: EvidenceRow;
  receiptToken: string;
}

export function newReceiptToken(organizationId: string): string {
  return `${organizationId}.${randomBase64url(18)}`;
}

export const receiptTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The organization a receipt token names, or null when it is not one. */
export function receiptTokenOrganization(token: string): string | null {
  const match = /^(org_[A-Za-z0-9]{1,64})\.[A-Za-z0-9_-]{24}$/.exec(token);
  return match ? match[1] : null;
}

export function createEvidenceService(deps: {
  store: Store;
  clock: Clock;
  /** This server's clock against the database's: no decision is recorded, no purge run, past its bound. */
  clockCheck: Pick<ClockCheck, 'assertWithinBound'>;
  organizations: Pick<OrganizationsService, 'getOrganization'>;
  /** The job the consent write enqueues for each consent.recorded delivery it makes. */
  events: EventOutbox;
  /** The consent state's 404 for an unknown channel. */
  findChannel: ChannelsService['findChannel'];
  /** The consent state's TC strings as tcf.js would serve them now (consent-state.ts). */
  servedTcStrings?: Parameters<typeof createConsentStateReader>[0]['servedTcStrings'];
  /** Told what each retention run leaves for the next one (the metrics). */
  retentionObserver?: RetentionObserver;
}) {
  const { store, clock, organizations } = deps;

  const writer = createEvidenceWriter({ store, clock, outbox: deps.events.attemptJob });
  // An organization's pseudonym secret never changes, so one read per process is enough.
  const secrets = new Map<string, Buffer>();

  async function secretOf(organizationId: string): Promise<Buffer> {
    const cached = secrets.get(organizationId);
    if (cached) return cached;
    const organization = await organizations.getOrganization(organizationId);
    if (!organization) throw new Error(`organization ${organizationId} does not exist`);
    secrets.set(organizationId, organization.pseudonymSecret);
    return organization.pseudonymSecret;
  }

  /**
   * The pseudonym of an event's subject, for `sameSubjectAs`: the console links an event to its
   * subject's other decisions knowing only the masked pseudonym. Read on the replica, as the list is.
   */
  async function subjectOf(scope: EvidenceScope, eventId: string): Promise<string> {
    const row = await evidenceRepo.find(store.replica, scope, eventId);
    if (!row?.subjectPseudonym) {
      throw notFound(
        'evidence event: the sameSubjectAs filter names no event of this environment (an evt_ id from GET /v1/evidence)',
      );
    }
    return row.subjectPseudonym;
  }

  const service = {
    /**
     * The pseudonym an organization's evidence knows a subject by: a visitor's subjectId (a device),
     * or a signed-in visitor's account id, each kind with its own key.
     */
    async pseudonymize(
      organizationId: string,
      id: string,
      kind: RecordInput['subjectKind'] = 'device',
    ): Promise<string> {
      const secret = await secretOf(organizationId);
      return kind === 'account' ? accountPseudonymOf(secret, id) : pseudonymOf(secret, id);
    },

    /**
     * The consent event of a decision, not yet stored. The receipt hash is computed from the row as
     * reads will show it (recordedAt at whole seconds, pseudonym unmasked), so anyone can recompute
     * it from `GET /v1/evidence/:id` plus the full pseudonym.
     */
    async event(input: RecordInput): Promise<RecordedEvent> {
      const { channel } = input;
      // A time from a clock the database's disagrees with is wrong evidence, and one far enough
      // back is dropped by the next purge: 503, which the SDK retries, instead of a 201.
      deps.clockCheck.assertWithinBound('The decision was not recorded');
      const receiptToken = newReceiptToken(channel.organizationId);
      const pseudonym =
        input.subjectPseudonym ??
        (await service.pseudonymize(channel.organizationId, input.subjectId, input.subjectKind));
      const now = clock.now();
      const row: EvidenceRow = {
        organizationId: channel.organizationId,
        // The id follows the recording time below its whole second (ids.ts): events of one second
        // list newest first in the order they were recorded, not by chance.
        id: newTimeOrderedId('evt', now),
        environment: channel.environment,
        channelId: channel.id,
        subjectPseudonym: pseudonym,
        decisions: input.decisions,
        configVersion: input.configVersion,
        policyVersion: input.policyVersion,
        source: input.source,
        language: input.language,
        gpc: input.gpc,
        origin: input.origin,
        userAgent: input.userAgent === null ? null : input.userAgent.slice(0, USER_AGENT_MAX),
        ipPrefix: input.ipPrefix,
        region: input.region.code,
        regionSource: input.region.source,
        regime: input.regime,
        gppString: input.gppString,
        tcString: input.tcString,
        tcf: input.tcf,
        subjectKind: input.subjectKind,
        gpcHonoredShown: input.gpcHonoredShown === true ? true : null,
        handoff: input.handoff ?? null,
        importedFrom: input.importedFrom ?? null,
        app: input.app ?? null,
        outcome: input.outcome,
        recordedAt: new Date(Math.floor(now.getTime() / 1000) * 1000),
        receiptHash: '',
        receiptTokenHash: receiptTokenHash(receiptToken),
        purgedAt: null,
      };
      const canonical = evidenceCanonicalBytes(evidenceEventBody(row, 'unmasked'));
      if (canonical.length > MAX_EVIDENCE_EVENT_BYTES) throw eventTooLarge(canonical.length);
      row.receiptHash = leafHashOf(canonical);
      return { row, receiptToken };
    },

    /**
     * Stores a request's consent events, with their consent.recorded outbox events and, for a write
     * with an Idempotency-Key, the key's record, in the next group commit (EvidenceWriter): all
     * committed before this resolves, so before the caller answers 201. `taken`: the key was held,
     * and nothing was written.
     */
    writeEvents: writer.writeEvents,

    async list(
      scope: EvidenceScope,
      filters: ListFilters,
      limit: number,
      after: CursorPosition | null,
    ): Promise<EvidenceRow[]> {
      const { subjectId, sameSubjectAs, ...rest } = filters;
      const subjectPseudonym =
        sameSubjectAs !== undefined
          ? await subjectOf(scope, sameSubjectAs)
          : subjectId === undefined
            ? undefined
            : await service.pseudonymize(scope.organizationId, subjectId);
      // Lists read the replica (DATABASE_READ_URL): they may lag the newest writes (docs/guides/postgresql.md).
      const rows = await evidenceRepo.list(store.replica, scope, { ...rest, subjectPseudonym }, limit, after);
      // A channelId of no channel here is a 404, not an empty list that reads as "no decisions yet".
      // Checked only when nothing was found: a row of the channel proves it exists.
      if (rows.length === 0 && rest.channelId !== undefined) {
        const channel = await deps.findChannel(scope.organizationId, scope.environment, rest.channelId);
        if (!channel) throw notFound('channel: the channelId filter names no channel of this environment');
      }
      return rows;
    },

    async get(db: DbScope, scope: EvidenceScope, id: string): Promise<EvidenceRow> {
      const row = await evidenceRepo.find(db.read, scope, id);
      if (!row) throw notFound('evidence event');
      return row;
    },

    /**
     * A subject's newest decision on a channel (by pseudonym: a handed-over choice is known by no raw
     * id), read on the primary, since the visitor's own page may just have recorded it; null when none.
     */
    async newestDecisionOf(
      scope: EvidenceScope,
      channelId: string,
      pseudonym: string,
    ): Promise<EvidenceRow | null> {
      return (await evidenceRepo.newestOfSubject(store.db, scope, channelId, pseudonym)) ?? null;
    },

    /** An unpurged event of the scope by id, on the primary; null when none. */
    async findEvent(scope: EvidenceScope, id: string): Promise<EvidenceRow | null> {
      return (await evidenceRepo.find(store.db, scope, id)) ?? null;
    },

    /**
     * The event a visitor's receipt token opens, or null: unknown event, wrong token,
     * an event from before receipts, or one the retention purge emptied. Hashes compare in constant time.
     */
    async findByReceiptToken(db: DbScope, eventId: string, token: string): Promise<EvidenceRow | null> {
      const organizationId = receiptTokenOrganization(token);
      if (!organizationId) return null;
      const row = await evidenceRepo.findInOrganization(db.read, organizationId, eventId);
      if (!row?.receiptTokenHash || row.purgedAt !== null) return null;
      const given = Buffer.from(receiptTokenHash(token), 'hex');
      const stored = Buffer.from(row.receiptTokenHash, 'hex');
      return stored.length === given.length && timingSafeEqual(stored, given) ? row : null;
    },

    /**
     * The retention purge (test evidence after a day, live after retentionDays), run by the worker's
     * `evidence.retention` task. What it leaves for the next run is in the answer's `deferred`.
     */
    purgeExpired: async () => {
      // By a clock ahead of the database's, the purge would drop evidence still in its retention.
      deps.clockCheck.assertWithinBound('The retention purge did not run');
      return purgeExpiredEvidence({ store, clock, observer: deps.retentionObserver });
    },

    /**
     * Makes the partitions ahead (current and next live months and more), as the service starts;
     * throws when one could not be made (a lock held too long, a read-only server).
     */
    async createPartitionsAhead(): Promise<void> {
      const left = await createPartitionsAhead({ store, clock });
      if (left.length > 0) {
        const codes = [...new Set(left.map((d) => d.code ?? d.reason))].join(', ');
        throw new Error(`${left.length} partitions not made (${codes})`);
      }
    },

    /** Consent state reads and the backfill of events older than the state table. */
    consentState: createConsentStateReader({
      store,
      clock,
      pseudonymize: (organizationId: string, id: string, kind: RecordInput['subjectKind']): Promise<string> =>
        service.pseudonymize(organizationId, id, kind),
      findChannel: deps.findChannel,
      servedTcStrings: deps.servedTcStrings,
    }),
  };
  return service;
}

export type EvidenceService = ReturnType<typeof createEvidenceService>;

// The row and the decision's types, for the modules that read or make evidence (consent, exports, receipts).
export type { Decision, DecisionOutcome, EvidenceRow, EvidenceTcf } from './evidence.tables.ts';

/**
 * The event with its receipt, members in the order reads serialize them: the optional members
 * (region, gppString, tcString, tcf, subjectKind, gpcHonoredShown, handoff and importedFrom) last, since the response serializer writes them after the others. Reads (`masked`) and
 * export lines (`unmasked`) are this object.
 */
export function evidenceWithReceipt(row: EvidenceRow, pseudonym: 'masked' | 'unmasked') {
  return {
    ...eventCore(row, pseudonym),
    receipt: { hash: row.receiptHash },
    ...regionMembers(row),
    ...gppMembers(row),
    ...tcfMembers(row),
    ...subjectKindMember(row),
    ...gpcHonoredMember(row),
    ...originMembers(row),
  };
}

/** The event of `GET /v1/evidence/:id`: masked, with its receipt. */
export function presentEvidence(row: EvidenceRow) {
  return evidenceWithReceipt(row, 'masked');
}

export type EvidenceEvent = ReturnType<typeof presentEvidence>;
