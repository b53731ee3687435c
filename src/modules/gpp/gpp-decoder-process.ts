import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * One child process running `@iabgpp/cmpapi`'s decoder (gpp-decode-child.mjs), one string at a time,
 * under a heap limit and a timeout. A process, not a worker thread: a worker's `resourceLimits` does
 * not hold against one large allocation (measured: with a 64 MB limit, a string whose vendor range
 * the library grows into an array aborted the whole process, not the worker); a child that runs out
 * of heap dies alone. It keeps the parent alive only while it holds a string.
 */

/** What became of one string. */
export type DecodeOutcome =
  /** The child answered: `error` null when every section decoded; `budget` when its budget stopped it. */
  | { kind: 'answered'; error: string | null; budget: boolean }
  /** The child died on it (out of heap, a fatal error) or took longer than the timeout, and is gone. */
  | { kind: 'failed'; reason: string };

export interface DecoderProcessOptions {
  heapMb: number;
  timeoutMs: number;
  /** Vendor ids the child lets the library expand per string; null: no budget. */
  budget: number | null;
  startupTimeoutMs: number;
}

export interface DecoderProcess {
  /** Resolves once the library is loaded; rejects when the child could not start. */
  readonly started: Promise<void>;
  /** Decodes one string; never call it again before the last one resolved. */
  decode(value: string): Promise<DecodeOutcome>;
  /** Kills the child (a string it holds resolves as failed). */
  kill(): void;
}

const CHILD_PATH = fileURLToPath(new URL('./gpp-decode-child.mjs', import.meta.url));

export function startDecoderProcess(options: DecoderProcessOptions): DecoderProcess {
  const child: ChildProcess = fork(CHILD_PATH, options.budget === null ? [] : [String(options.budget)], {
    // Not the parent's flags (a TypeScript loader, its heap size) nor its environment (secrets,
    // NODE_OPTIONS): the child's own heap limit, and nothing it does not need.
    execArgv: [`--max-old-space-size=${options.heapMb}`],
    env: {},
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'json',
  });
  let pending: { id: number; resolve: (outcome: DecodeOutcome) => void; timer: NodeJS.Timeout } | null = null;
  let nextId = 0;
  let gone = false;

  /** Holds the parent's event loop open only while a string is in the child. */
  const hold = (busy: boolean) => {
    if (busy) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  };

  const settle = (outcome: DecodeOutcome) => {
    const job = pending;
    if (!job) return;
    pending = null;
    clearTimeout(job.timer);
    if (!gone) hold(false);
    job.resolve(outcome);
  };

  const kill = () => {
    gone = true;
    child.kill('SIGKILL');
  };

  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      kill();
      reject(new Error('the GPP decoder did not start'));
    }, options.startupTimeoutMs);
    child.on('message', (message: { ready?: true; id?: number; error?: string | null; budget?: boolean }) => {
      if (message.ready) {
        clearTimeout(timer);
        hold(false);
        resolve();
      } else if (pending && message.id === pending.id) {
        settle({ kind: 'answered', error: message.error ?? null, budget: message.budget === true });
      }
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      kill();
      reject(error);
      settle({ kind: 'failed', reason: `its decoding failed: ${error.message}` });
    });
    child.on('exit', () => {
      gone = true;
      clearTimeout(timer);
      reject(new Error('the GPP decoder exited while starting'));
      settle({
        kind: 'failed',
        reason: `its decoding stopped the decoder (a heap of ${options.heapMb} MB, or a fatal error)`,
      });
    });
  });
  // A start that fails is the caller's to handle (through `started`); never an unhandled rejection.
  started.catch(() => {});

  return {
    started,
    kill,
    decode(value: string): Promise<DecodeOutcome> {
      if (gone) return Promise.resolve({ kind: 'failed', reason: 'the decoder was stopped' });
      return new Promise((resolve) => {
        const id = ++nextId;
        const timer = setTimeout(() => {
          kill();
          settle({ kind: 'failed', reason: `its decoding took longer than ${options.timeoutMs} ms` });
        }, options.timeoutMs);
        pending = { id, resolve, timer };
        hold(true);
        child.send({ id, value });
      });
    },
  };
}
