// Shared by the plain-JavaScript client (bin, before tsx loads) and the server (TypeScript).
import path from 'node:path';

/** Commands that use the store: the ones a running embedded server takes over its socket. */
export const STORE_COMMANDS = ['bootstrap', 'members', 'keys', 'orgs', 'migrate', 'demo', 'ledger', 'init'];

/** The server's control socket lives in a directory of its own, owner-only (0700). */
export const controlDir = (dataDir) => path.join(dataDir, 'run');
export const controlSocketPath = (dataDir) => path.join(controlDir(dataDir), 'cli.sock');

/** sun_path holds 108 bytes with the terminating NUL; a longer path cannot be a socket. */
export const socketPathFits = (socketPath) => Buffer.byteLength(socketPath) <= 107;
