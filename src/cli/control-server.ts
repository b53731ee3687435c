import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { CommandIo } from './commands.ts';
import { controlDir, controlSocketPath, socketPathFits } from './control-path.mjs';
import { describeError } from './errors.ts';
import { runStoreCommand } from './run-command.ts';
import type { Runtime } from './runtime.ts';
import { storeLine } from './store-line.ts';

/**
 * What one connection may have sent and the server not yet read, all lines together: a request line
 * and the forwarded stdin fit far below it (a command line, a password). Past it the connection is
 * closed: lines kept unread would cost the server far more than their size (60 MB of short lines
 * grew it to 1.8 GB).
 */
const MAX_BUFFERED_BYTES = 1 << 20;
/** Messages a client sends before the server reads them: its request, then stdin when asked for. */
const MAX_QUEUED_MESSAGES = 2;
/** Sub-commands, logged beside the command; nothing else of the command line is. */
const ACTIONS = ['add', 'set-password', 'create', 'set-limit'];
/** A client that connects and says nothing is dropped after this. */
const FIRST_MESSAGE_MS = 10_000;

/** What commands need, once the server has opened its store and built its logger. */
export interface Ready {
  runtime: Runtime;
  log: FastifyBaseLogger;
}

export interface ControlServer {
  /** Stops taking commands, waits for the running ones, and removes the socket. */
  close(): Promise<void>;
}

/**
 * The embedded store is single-process, so while the server holds DATA_DIR the CLI sends its store
 * commands here (src/cli/control-client.mjs) and they run in this process, through the same code
 * as the direct CLI, with the same output and exit codes.
 *
 * Protocol: newline-delimited JSON. The client sends {argv, cwd}; the server answers {stdout: line}
 * for each output line, {stderr: text} for a note (which store the command used), {stdin: true}
 * when the command reads stdin (the client then sends {stdin: text}: a password, never logged),
 * and finally {exit, stderr?}.
 *
 * Only the owner of DATA_DIR can connect: the socket is 0600 in a 0700 directory. It is opened once
 * this process holds the data directory's lock, so a socket found there is stale and replaced.
 */
export async function startControlServer(
  config: Config,
  ready: Promise<Ready>,
): Promise<ControlServer | null> {
  const socketPath = controlSocketPath(config.dataDir);
  // The caller warns (this runs before there is a logger): CLI commands then need the server stopped.
  if (!socketPathFits(socketPath)) return null;
  const dir = controlDir(config.dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  fs.rmSync(socketPath, { force: true });

  const running = new Set<Promise<void>>();
  const server = net.createServer((socket) => {
    const done = serveConnection(socket, config, ready).catch(() => {
      socket.destroy();
    });
    running.add(done);
    void done.finally(() => running.delete(done));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(running);
      fs.rmSync(socketPath, { force: true });
    },
  };
}

/**
 * Reads newline-delimited JSON messages from the socket, one at a time. Lines are parsed only when
 * read, and what is unread stays bounded: past MAX_QUEUED_MESSAGES lines or MAX_BUFFERED_BYTES the
 * connection is closed (its next read answers null, as a closed connection does).
 */
function messages(socket: net.Socket) {
  let buffered = '';
  const waiting: Array<(message: Record<string, unknown> | null) => void> = [];
  const lines: string[] = [];
  let unreadBytes = 0;
  let closed = false;
  const parse = (line: string): Record<string, unknown> | null => {
    try {
      const message = JSON.parse(line);
      return message && typeof message === 'object' ? message : null;
    } catch {
      return null;
    }
  };
  const close = () => {
    closed = true;
    buffered = '';
    lines.length = 0;
    unreadBytes = 0;
    for (const next of waiting.splice(0)) next(null);
    socket.destroy();
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (closed) return;
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const next = waiting.shift();
      if (next) next(parse(line));
      else {
        lines.push(line);
        unreadBytes += line.length;
      }
    }
    if (lines.length > MAX_QUEUED_MESSAGES || unreadBytes + buffered.length > MAX_BUFFERED_BYTES) close();
  });
  socket.on('close', () => {
    closed = true;
    for (const next of waiting.splice(0)) next(null);
  });
  socket.on('error', () => {});
  return (): Promise<Record<string, unknown> | null> => {
    const line = lines.shift();
    if (line !== undefined) {
      unreadBytes -= line.length;
      return Promise.resolve(parse(line));
    }
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => waiting.push(resolve));
  };
}

async function serveConnection(socket: net.Socket, config: Config, ready: Promise<Ready>) {
  const next = messages(socket);
  const send = (message: Record<string, unknown>) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  const timer = setTimeout(() => socket.destroy(), FIRST_MESSAGE_MS);
  const request = await next();
  clearTimeout(timer);
  const argv = request?.argv;
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) {
    socket.destroy();
    return;
  }
  const { runtime, log } = await ready;
  // The command's name only: its arguments hold emails, and stdin a password.
  const command = ACTIONS.includes(argv[1]) ? `${argv[0]} ${argv[1]}` : String(argv[0]);
  log.info({ command }, 'CLI command over the control socket');
  const io: CommandIo = {
    config,
    out: (line) => send({ stdout: line }),
    note: (line) => send({ stderr: `consent-service: ${line}\n` }),
    readStdin: async () => {
      send({ stdin: true });
      const reply = await next();
      return typeof reply?.stdin === 'string' ? reply.stdin : '';
    },
    // The CLI's own directory, for a relative path it was given (init --dir).
    cwd: typeof request?.cwd === 'string' && path.isAbsolute(request.cwd) ? request.cwd : process.cwd(),
    withRuntime: (fn) => {
      send({ stderr: storeLine(config, { pid: process.pid }) });
      return fn(runtime);
    },
  };
  try {
    await runStoreCommand(argv, io);
    send({ exit: 0 });
  } catch (error) {
    const { exitCode, stderr, unexpected } = describeError(error);
    if (unexpected) log.error({ err: error, command }, 'CLI command failed');
    send({ exit: exitCode, stderr });
  }
  socket.end();
}
