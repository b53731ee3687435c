import { AppError } from '../../platform/http/errors.ts';
import { declaredSectionIds, gppBoundsError } from './gpp-bounds.ts';
import { createSiteBreakers } from './gpp-breaker.ts';
import { type DecoderProcess, startDecoderProcess } from './gpp-decoder-process.ts';
import { createOrganizationQueues, type Job } from './gpp-queues.ts';
import { MAX_EXPANDED_IDS } from './gpp-section-bounds.ts';

/**
 * GPP (IAB Global Privacy Platform, docs/decisions/gpp-decoding.md): the check of a decision's GPP
 * string, decoded in child processes (gpp-decoder-process.ts), which consent calls; the stub a GPP
 * channel's snippet carries is gpp-stub.ts, which the wiring takes.
 */

/**
 * The decoder processes every site's GPP strings share, shared so that no organization's strings
 * hold another's (docs/decisions/gpp-decoding.md):
 *
 * - a pool of PROCESSES children (gpp-decoder-process.ts), started one after another from the
 *   first string on, and each replaced as soon as it is gone;
 * - one queue per organization, served in turn (round robin), and no organization holds more than
 *   PROCESSES - 1 children at once: another organization's string always has a child that is not
 *   busy with the first's, and waits at most for the strings of the organizations ahead of it in
 *   this round (one each), however many the first has queued;
 * - admission: an organization may have MAX_WAITING_PER_ORGANIZATION strings waiting (the next is a
 *   503 at once), and a string waits at most MAX_WAIT_MS for a child (then a 503);
 * - a circuit breaker per site (gpp-breaker.ts): a site whose strings stopped a child (out of heap,
 *   or past the timeout) BREAKER_FAILURES times within BREAKER_WINDOW_MS gets a 503 for its
 *   strings, without a decode, for BREAKER_OPEN_MS; other sites are untouched.
 * A 503 carries Retry-After: the SDK retries a 5xx, while a 4xx would be stored with the request's
 * Idempotency-Key and replayed to every retry.
 */

/** A real string decodes in well under a millisecond; one within the bounds in a few. */
export const GPP_DECODE_TIMEOUT_MS = 1000;
/** The child's heap: a string at the expansion bound decodes within a few MB. */
const HEAP_MB = 32;
const PROCESSES = 2;
/** How long a string may wait for a child; a real one waits a child's start (about 200 ms). */
const MAX_WAIT_MS = 2000;
const MAX_WAITING_PER_ORGANIZATION = 32;
/** A bound on what waiting strings hold, over all organizations (each is bounded first). */
const MAX_WAITING = 1024;
const BREAKER_FAILURES = 2;
const BREAKER_WINDOW_MS = 60_000;
const BREAKER_OPEN_MS = 60_000;
/** A child that has not loaded the library by then is given up on. */
const STARTUP_TIMEOUT_MS = 10_000;

/** Whose string it is: its organization (the queue it waits in) and its site (the breaker). */
export interface GppOwner {
  organizationId: string;
  siteKey: string;
}

/** Why a string did not decode: the library's error, its expansion budget, or that it stopped a child. */
export interface GppRefusal {
  reason: string;
  /** Stopped by the expansion budget (the string is outside the service's bounds). */
  budget: boolean;
}

export interface GppDecoder {
  /**
   * Null when every section decodes, else why not. Rejects with a 503 when the string cannot be
   * judged now, and with an Error when no decoder could be started.
   */
  decode(value: string, owner: GppOwner): Promise<GppRefusal | null>;
  /** Starts every child now (they start with the first string otherwise); resolves once they are up. */
  warm(): Promise<void>;
  /** Stops the children (the app is closing). */
  close(): void;
}

export interface GppDecoderOptions {
  processes?: number;
  /** Vendor ids the children let the library expand per string; null: no budget (tests only). */
  budget?: number | null;
  timeoutMs?: number;
  maxWaitMs?: number;
  maxWaitingPerOrganization?: number;
  now?: () => number;
}

interface Slot {
  process: DecoderProcess | null;
  ready: boolean;
  job: Job | null;
  /** The organization whose string stopped this slot's last child: it holds the slot until its replacement is up. */
  heldBy: string | null;
}

const unavailable = (detail: string, retryAfterSeconds: number) =>
  new AppError('service_unavailable', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });
const busy = () => unavailable('Too many GPP strings are being checked at once; try again shortly.', 1);
const breakerOpen = (left: number) =>
  unavailable(
    'GPP strings sent to this site have repeatedly stopped the decoder; its GPP strings are not checked for a while.',
    Math.ceil(left / 1000),
  );

export function createGppDecoder(options: GppDecoderOptions = {}): GppDecoder {
  const processes = options.processes ?? PROCESSES;
  const perOrganization = Math.max(1, processes - 1);
  const maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
  const maxWaitingPerOrganization = options.maxWaitingPerOrganization ?? MAX_WAITING_PER_ORGANIZATION;
  const processOptions = {
    heapMb: HEAP_MB,
    timeoutMs: options.timeoutMs ?? GPP_DECODE_TIMEOUT_MS,
    budget: options.budget === undefined ? MAX_EXPANDED_IDS : options.budget,
    startupTimeoutMs: STARTUP_TIMEOUT_MS,
  };
  const slots: Slot[] = Array.from({ length: processes }, () => ({
    process: null,
    ready: false,
    job: null,
    heldBy: null,
  }));
  const queues = createOrganizationQueues(perOrganization);
  const { dequeue, taken, released } = queues;
  const breakers = createSiteBreakers({
    failures: BREAKER_FAILURES,
    windowMs: BREAKER_WINDOW_MS,
    openMs: BREAKER_OPEN_MS,
    now: options.now ?? (() => performance.now()),
  });
  /** Whether any string came: from then on every slot keeps a child (none is started before). */
  let inUse = false;
  let closed = false;

  /** A string of `owner` stopped a child: once that opens the site's breaker, its waiting strings go. */
  function failed(owner: GppOwner): void {
    if (!breakers.failed(owner.siteKey)) return;
    for (const job of queues.of(owner.organizationId).filter((j) => j.owner.siteKey === owner.siteKey)) {
      dequeue(job);
      job.reject(breakerOpen(BREAKER_OPEN_MS));
    }
  }

  /** The slot's replacement is up (or could not start): whoever stopped its last child lets it go. */
  function release(slot: Slot): void {
    if (slot.heldBy !== null) released(slot.heldBy);
    slot.heldBy = null;
  }

  function start(slot: Slot): void {
    const started = startDecoderProcess(processOptions);
    slot.process = started;
    slot.ready = false;
    started.started.then(
      () => {
        if (slot.process !== started) return;
        slot.ready = true;
        release(slot);
        pump();
      },
      (error: Error) => {
        if (slot.process !== started) return;
        slot.process = null;
        release(slot);
        // The library could not be loaded: every waiting string fails (a 500), none is judged.
        for (const job of queues.all()) {
          dequeue(job);
          job.reject(error);
        }
      },
    );
  }

  async function run(slot: Slot, process: DecoderProcess, job: Job): Promise<void> {
    const { organizationId } = job.owner;
    slot.job = job;
    taken(organizationId);
    const outcome = await process.decode(job.value);
    slot.job = null;
    if (closed) return job.reject(busy());
    if (outcome.kind === 'failed') {
      // The child is gone. Its replacement starts now, and until it is up the organization whose
      // string stopped it still holds the slot: it cannot take the other children meanwhile.
      slot.heldBy = organizationId;
      start(slot);
      failed(job.owner);
      job.resolve({ reason: outcome.reason, budget: false });
    } else {
      released(organizationId);
      job.resolve(outcome.error === null ? null : { reason: outcome.error, budget: outcome.budget });
    }
    pump();
  }

  function pump(): void {
    if (closed || !inUse) return;
    // Every slot keeps a child, so that another organization's string never waits for a start; one
    // start at a time (two at once slow each other on a small machine).
    const vacant = slots.find((slot) => !slot.process);
    if (vacant && !slots.some((slot) => slot.process && !slot.ready)) start(vacant);
    for (const slot of slots) {
      if (slot.job || !slot.ready || !slot.process || queues.waiting() === 0) continue;
      const job = queues.next();
      if (!job) return;
      void run(slot, slot.process, job);
    }
  }

  return {
    async warm() {
      inUse = true;
      for (;;) {
        const starting = slots.find((slot) => slot.process && !slot.ready);
        // Its start's own handler runs first: that slot is ready, and pump has started the next.
        if (starting?.process) await starting.process.started;
        else if (closed || slots.every((slot) => slot.ready)) return;
        else pump();
        if (!slots.some((slot) => slot.process)) return;
      }
    },

    decode(value, owner) {
      if (closed) return Promise.reject(busy());
      inUse = true;
      const open = breakers.openFor(owner.siteKey);
      if (open > 0) return Promise.reject(breakerOpen(open));
      const queue = queues.of(owner.organizationId);
      if (queues.waiting() >= MAX_WAITING || queue.length >= maxWaitingPerOrganization)
        return Promise.reject(busy());
      return new Promise((resolve, reject) => {
        const job: Job = {
          value,
          owner,
          resolve,
          reject,
          expiry: setTimeout(() => {
            dequeue(job);
            reject(busy());
          }, maxWaitMs),
        };
        queues.enqueue(job);
        pump();
      });
    },

    close() {
      closed = true;
      for (const job of queues.all()) {
        dequeue(job);
        job.reject(busy());
      }
      for (const slot of slots) slot.process?.kill();
    },
  };
}

/**
 * Whether a GPP string (IAB Global Privacy Platform) decodes, checked with the IAB's own library
 * (`@iabgpp/cmpapi`, no hand-written decoder): null when it does, else why not, phrased to follow
 * the field's name. Every section is decoded (`toObject`), not just the header.
 *
 * A decoder's worst case is the attacker's best case, so:
 * - gpp-bounds.ts and gpp-section-bounds.ts read the header and the sections' vendor ranges
 *   themselves and refuse, before any decoding, a string that would make the library expand more
 *   than a bound (the library expands every declared range one id at a time: 15 characters of
 *   header once took 18 s of the event loop and then the process; a 603-character tcfeuv2 section
 *   of 100 ranges 1..65535 ran the shared decoder out of memory, and every tenant's GPP decisions
 *   waited for its restarts).
 * - The decode runs in child processes with a small heap, a timeout and the same expansion budget,
 *   shared so that one organization's strings cannot hold another's (gpp.service.ts); the main
 *   thread never waits on them.
 */
export async function gppDecodeError(
  decoder: GppDecoder,
  value: string,
  owner: GppOwner,
): Promise<string | null> {
  const refused = gppBoundsError(value);
  if (refused) return `is not a GPP string this service accepts: ${refused}`;
  const refusal = await decoder.decode(value, owner);
  if (refusal === null) return null;
  if (refusal.budget) return `is not a GPP string this service accepts: ${refusal.reason}`;
  const { reason } = refusal;
  return `is not a GPP string that decodes: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`;
}

/** The GPP section id of the EU TCF v2 section (`tcfeuv2`), whose content is a TC string. */
export const TCF_EU_SECTION_ID = 2;

/**
 * The EU TCF v2 section of a GPP string (IAB Global Privacy Platform, section 2): a TC string by
 * the specification (its core and other segments, as `@iabtechlabtcf/core` reads them), or null
 * when the header declares none. For a string gppDecodeError took: the header is read within the
 * bounds of gpp-bounds.ts, and nothing is expanded.
 */
export function tcfEuSection(value: string): string | null {
  const [header, ...sections] = value.split('~');
  const ids = declaredSectionIds(header);
  if (typeof ids === 'string') return null;
  const at = ids.indexOf(TCF_EU_SECTION_ID);
  return at === -1 ? null : (sections[at] ?? null);
}
