import fs from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR holds export files (evidence with pseudonyms) on every store, and on the embedded store
 * everything else too: the database files and WAL (member emails, evidence), the generated signing
 * and webhook keys. Only the service's own user may read or change any of it.
 *
 * PGlite (Emscripten's file system) creates its files 0666 whatever the umask, so the umask alone
 * is not enough: DATA_DIR itself is kept 0700, which closes everything below it to other users, and
 * the modes below it are repaired when the store is opened and again when it is closed (a file
 * PGlite creates while running is 0666, but inside a directory no one else can enter).
 *
 * `create: false` (PostgreSQL, where only exports use DATA_DIR) repairs a DATA_DIR that exists and
 * leaves a missing one to whatever first writes there (export storage creates it 0700): an API
 * process that never writes needs no data directory.
 */
export function protectDataDir(dataDir: string, { create = true }: { create?: boolean } = {}): void {
  // Files and folders this process creates from now on: the owner's only (export files, keys, folders).
  process.umask(0o077);
  if (create) fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  repairModes(dataDir);
}

/** Removes group and other permissions from DATA_DIR and everything under it (symlinks untouched). */
export function repairModes(dataDir: string): void {
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    if (stat.mode & 0o077) fs.chmodSync(entry, stat.mode & 0o700);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dataDir);
}
