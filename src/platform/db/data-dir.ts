import fs from 'node:fs';
import path from 'node:path';

/**
 * The embedded store's directory holds everything: the database files and WAL (member emails,
 * evidence), the generated signing and webhook keys, export files. Only the service's own user may
 * read or change any of it.
 *
 * PGlite (Emscripten's file system) creates its files 0666 whatever the umask, so the umask alone
 * is not enough: DATA_DIR itself is kept 0700, which closes everything below it to other users, and
 * the modes below it are repaired when the store is opened and again when it is closed (a file
 * PGlite creates while running is 0666, but inside a directory no one else can enter).
 */
export function protectDataDir(dataDir: string): void {
  // Files and folders this process creates from now on: the owner's only (export files, keys, folders).
  process.umask(0o077);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
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
