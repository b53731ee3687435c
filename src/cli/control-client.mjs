// Plain JavaScript: runs before tsx loads, so a command sent to a running server costs no
// TypeScript compile, no drizzle and no PGlite in this process.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { lockHeld, readLock } from '../platform/db/data-dir-lock.mjs';
import { controlSocketPath, STORE_COMMANDS, socketPathFits } from './control-path.mjs';

/** How long to wait for a server that holds the lock to open its socket (it does so at once). */
const SOCKET_WAIT_MS = 3000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function connect(socketPath) {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => resolve(socket));
    socket.once('error', () => resolve(null));
  });
}

async function readAllStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Sends a store command to the server that holds the embedded data directory, if one runs, and
 * relays its output; returns the exit code, or null when no server holds the directory (the
 * command then runs here) or the store is PostgreSQL (which any number of processes share).
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number | null>}
 */
export async function forwardToServer(argv, env) {
  if (env.DATABASE_URL || !STORE_COMMANDS.includes(argv[0])) return null;
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const socketPath = controlSocketPath(dataDir);
  if (!socketPathFits(socketPath)) return null;
  let socket = null;
  const deadline = Date.now() + SOCKET_WAIT_MS;
  for (;;) {
    if (fs.existsSync(socketPath)) socket = await connect(socketPath);
    // No live server: run here (a stale lock or socket is cleared by whoever opens the store).
    if (socket || !lockHeld(readLock(dataDir)) || Date.now() > deadline) break;
    await sleep(50);
  }
  if (!socket) return null;
  return relay(socket, argv);
}

/** One command over the socket: newline-delimited JSON both ways (protocol in control-server.ts). */
function relay(socket, argv) {
  return new Promise((resolve) => {
    let buffered = '';
    let exitCode = null;
    const send = (message) => socket.write(`${JSON.stringify(message)}\n`);
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (typeof message.stdout === 'string') process.stdout.write(`${message.stdout}\n`);
        if (typeof message.stderr === 'string') process.stderr.write(message.stderr);
        if (message.stdin === true) readAllStdin().then((stdin) => send({ stdin }));
        if (typeof message.exit === 'number') {
          exitCode = message.exit;
          socket.end();
        }
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (exitCode === null) {
        process.stderr.write(
          'consent-service: the server holding the data directory closed the connection before answering\n',
        );
        exitCode = 1;
      }
      resolve(exitCode);
    });
    send({ argv, cwd: process.cwd() });
  });
}
