import { createHook } from 'node:async_hooks';
import net from 'node:net';
import { afterAll, expect, vi } from 'vitest';

/**
 * Runs in every service test file (vitest setupFiles, listed last): files share their worker
 * process (`isolate: false`), so whatever one leaves behind, the next inherits. When the file's own
 * hooks are done, this fails the file if it left:
 * - an environment variable set, changed or removed (restore it, or use vi.stubEnv with
 *   vi.unstubAllEnvs);
 * - a new global (vi.stubGlobal needs vi.unstubAllGlobals) or fake timers on (vi.useRealTimers);
 * - a server still listening (an app not closed), a child process still running, a timer still
 *   pending, or a connection still open to PostgreSQL (a store not closed).
 * Handles close asynchronously after `close()` resolves, so the check waits (up to 10 s) for the
 * count to come back to what it was when the file started, a positive signal, not a fixed sleep.
 */

/** The environment and globals as the file found them (after per-file-database set DATABASE_URL). */
const envAtStart = { ...process.env };
const globalsAtStart = new Set(Object.keys(globalThis));

/**
 * Globals that libraries define on first use and keep by design, not a test's stub: each with why.
 * Names matched exactly.
 */
const LIBRARY_GLOBALS = new Set<string>([
  // zod 4 keeps its global config and schema registry here, made once on first import.
  '__zod_globalConfig',
  '__zod_globalRegistry',
]);

/**
 * The timers this file made that are still pending, with where each was made. Timers that others
 * made on the file's behalf are left out, judged by the code that called setTimeout/setInterval:
 * vitest's own (a hook's timeout), PGlite's (PostgreSQL's timeouts inside the embedded instance,
 * which workers keep from file to file: embedded-instances.ts), and the one timer wheel that Node's
 * fetch (undici) keeps for the whole process.
 */
const pendingTimers = new Map<number, string>();
/** True while the check below waits: its own timers are not the file's. */
let checking = false;
const NOT_THE_FILES =
  /node_modules[\\/](vitest|@vitest|tinypool|tinyspy|@electric-sql[\\/]pglite)[\\/]|node:internal\/deps\/undici/;
/** Frames between setTimeout's caller and this hook: node's timers, async hooks, this file. */
const PLUMBING =
  /node:internal\/(async_hooks|timers)|node:timers|file-isolation\.ts|at new Promise|<anonymous>/;

/** The frames of a timer's stack from the code that made it on (the hook's own frames dropped). */
const callerFrames = (stack: string) =>
  stack
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((frame) => !PLUMBING.test(frame));

const timerHook = createHook({
  init(id, type) {
    if (type !== 'Timeout' || checking) return;
    const stack = new Error().stack ?? '';
    if (!NOT_THE_FILES.test(callerFrames(stack)[0] ?? '')) pendingTimers.set(id, stack);
  },
  destroy(id) {
    pendingTimers.delete(id);
  },
}).enable();

/** Where a pending timer was made: its caller and the caller's caller. */
function madeAt(stack: string): string {
  return callerFrames(stack).slice(0, 2).join(' < ');
}

type Handles = { servers: number; children: number; postgres: number };

/** The live handles of this process that a file can leave behind, counted by kind. */
function handles(): Handles {
  const counts: Handles = { servers: 0, children: 0, postgres: 0 };
  const active = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  for (const handle of active) {
    if (handle instanceof net.Server) counts.servers++;
    else if (handle instanceof net.Socket && handle.remotePort === 5432) counts.postgres++;
    else if ((handle as { constructor?: { name?: string } })?.constructor?.name === 'ChildProcess') {
      counts.children++;
    }
  }
  return counts;
}

const handlesAtStart = handles();

/** What grew since the start, as "2 servers" style words; empty when nothing did. */
function grown(now: Handles): string[] {
  return [
    ...(Object.keys(now) as Array<keyof Handles>)
      .filter((kind) => now[kind] > handlesAtStart[kind])
      .map((kind) => `${now[kind] - handlesAtStart[kind]} more ${kind} than at the start`),
    ...[...pendingTimers.values()].map((stack) => `a pending timer made ${madeAt(stack)}`),
  ];
}

afterAll(async () => {
  const env = Object.keys({ ...envAtStart, ...process.env })
    .filter((name) => envAtStart[name] !== process.env[name])
    .sort();
  const globals = Object.keys(globalThis)
    .filter((name) => !globalsAtStart.has(name) && !LIBRARY_GLOBALS.has(name))
    .sort();
  checking = true;
  let left = grown(handles());
  for (let waited = 0; left.length > 0 && waited < 10_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = grown(handles());
  }
  const state = { env, globals, fakeTimers: vi.isFakeTimers(), handles: left };
  expect(
    state,
    'this file left state behind for the next file in its worker: restore env vars and globals, ' +
      'use real timers again, and close every app, store, server, child process and timer it opened',
  ).toEqual({ env: [], globals: [], fakeTimers: false, handles: [] });
  timerHook.disable();
}, 20_000);
