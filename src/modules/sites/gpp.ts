import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../platform/http/errors.ts';
import { gppBoundsError } from './gpp-bounds.ts';

/**
 * Whether a GPP string (IAB Global Privacy Platform) decodes, checked with the IAB's own library
 * (`@iabgpp/cmpapi`, no hand-written decoder): null when it does, else why not. Every section is
 * decoded (`toObject`), not just the header.
 *
 * A decoder's worst case is the attacker's best case, so two bounds come first:
 * - gpp-bounds.ts reads the header itself and refuses, before any decoding, a string whose header
 *   declares too many sections or ids out of range (the library expands a declared range one id at
 *   a time: 15 characters once took 18 s of the event loop and then the process).
 * - The decode runs in a child process with a small heap and a timeout. The sections' content is
 *   the library's to read, and it expands ranges in there too: a 70-character tcfcav1 section
 *   declaring a vendor range of 169 million ids ends like the header did, and a 3.9k tcfeuv2
 *   section of 16-bit vendor ranges takes 2 s and 1.5 GB. A process, not a worker thread:
 *   a worker's `resourceLimits` does not hold against one large allocation (measured: with a 64 MB
 *   limit, the array growth of that tcfcav1 string aborts the whole process, not the worker); a
 *   child that runs out of heap dies alone. Such a string is refused, the child replaced, and the
 *   main thread never waits on it.
 * One child, started on the first GPP string (most decisions carry none) and not keeping the
 * process alive, decodes one string at a time. A string that has waited MAX_WAIT_MS for it (behind
 * hostile ones), or finds MAX_WAITING waiting, gets a 503 with Retry-After: the SDK retries a 5xx,
 * while a 4xx would be stored with the request's Idempotency-Key and replayed to every retry.
 */
export async function gppDecodeError(value: string): Promise<string | null> {
  const refused = gppBoundsError(value);
  if (refused) return `is not a GPP string this service accepts: ${refused}`;
  const reason = await decodeInChild(value);
  if (reason === null) return null;
  return `is not a GPP string that decodes: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`;
}

/**
 * A real string decodes in well under a millisecond; the largest the encoder makes (six vendor
 * lists of all 65,535 ids, 178 characters) in under 100 ms. One that takes longer is refused.
 */
export const GPP_DECODE_TIMEOUT_MS = 1000;
/** The child's heap: the largest string above decodes within 16 MB. */
const GPP_DECODE_HEAP_MB = 32;
/** How long a string may wait for the child; a real one waits a child's start (about 200 ms). */
const MAX_WAIT_MS = 2000;
/** How many strings may wait at once (a bound on what they hold; the wait bound comes first). */
const MAX_WAITING = 256;
/** A child that has not loaded the library by then is given up on. */
const STARTUP_TIMEOUT_MS = 10_000;
const CHILD_PATH = fileURLToPath(new URL('./gpp-decode-child.mjs', import.meta.url));

interface Job {
  id: number;
  value: string;
  resolve: (reason: string | null) => void;
  reject: (error: Error) => void;
  /** Refuses the job with a 503 if it is still waiting after MAX_WAIT_MS. */
  expiry: NodeJS.Timeout;
}

let child: ChildProcess | null = null;
let ready = false;
let current: Job | null = null;
let timer: NodeJS.Timeout | undefined;
let nextId = 0;
const waiting: Job[] = [];

const busy = () =>
  new AppError('service_unavailable', 'Too many GPP strings are being checked at once; try again shortly.', {
    headers: { 'Retry-After': '1' },
  });

function decodeInChild(value: string): Promise<string | null> {
  if (waiting.length >= MAX_WAITING) return Promise.reject(busy());
  return new Promise((resolve, reject) => {
    const job: Job = {
      id: ++nextId,
      value,
      resolve,
      reject,
      expiry: setTimeout(() => {
        const index = waiting.indexOf(job);
        if (index === -1) return;
        waiting.splice(index, 1);
        reject(busy());
      }, MAX_WAIT_MS),
    };
    waiting.push(job);
    pump();
  });
}

/** The child keeps the process alive only while it holds a string. */
function hold(decoder: ChildProcess, busy: boolean): void {
  if (busy) {
    decoder.ref();
    decoder.channel?.ref();
  } else {
    decoder.unref();
    decoder.channel?.unref();
  }
}

/** Sends the next waiting string to the child, starting one if there is none. */
function pump(): void {
  if (current || waiting.length === 0) return;
  if (!child) {
    start();
    return;
  }
  if (!ready) return;
  const job = waiting.shift()!;
  clearTimeout(job.expiry);
  current = job;
  hold(child, true);
  timer = setTimeout(() => {
    answer(`its decoding took longer than ${GPP_DECODE_TIMEOUT_MS} ms`);
    discard();
  }, GPP_DECODE_TIMEOUT_MS);
  child.send({ id: job.id, value: job.value });
}

function start(): void {
  const started = fork(CHILD_PATH, [], {
    // Not the parent's flags (a TypeScript loader, its heap size) nor its environment (secrets,
    // NODE_OPTIONS): the child's own heap limit, and nothing it does not need.
    execArgv: [`--max-old-space-size=${GPP_DECODE_HEAP_MB}`],
    env: {},
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'json',
  });
  child = started;
  ready = false;
  timer = setTimeout(
    () => failStart(started, new Error('the GPP decoder did not start')),
    STARTUP_TIMEOUT_MS,
  );
  started.on('message', (message: { ready?: true; id?: number; error?: string | null }) => {
    if (started !== child) return;
    if (message.ready) {
      clearTimeout(timer);
      ready = true;
      hold(started, false);
      pump();
    } else if (current && message.id === current.id) {
      answer(message.error ?? null);
      hold(started, false);
      pump();
    }
  });
  started.on('error', (error) => {
    if (started !== child) return;
    if (!ready) return failStart(started, error);
    answer(`its decoding failed: ${error.message}`);
    discard();
  });
  started.on('exit', () => {
    if (started !== child) return;
    if (!ready) return failStart(started, new Error('the GPP decoder exited while starting'));
    answer(`its decoding stopped the decoder (a heap of ${GPP_DECODE_HEAP_MB} MB, or a fatal error)`);
    discard();
  });
}

/** Answers the string in flight (if any) with `reason`, null when it decoded. */
function answer(reason: string | null): void {
  clearTimeout(timer);
  const job = current;
  current = null;
  job?.resolve(reason);
}

/** Drops the child (stuck or dead); the next string starts a fresh one. */
function discard(): void {
  const dropped = child;
  child = null;
  ready = false;
  dropped?.kill('SIGKILL');
  pump();
}

/** The child could not load the library: every waiting string fails (a 500), none is judged. */
function failStart(started: ChildProcess, error: Error): void {
  if (started !== child) return;
  clearTimeout(timer);
  child = null;
  ready = false;
  started.kill('SIGKILL');
  for (const job of waiting.splice(0)) {
    clearTimeout(job.expiry);
    job.reject(error);
  }
}
