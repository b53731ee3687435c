import fs from 'node:fs';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { evidenceLeafHash } from '../modules/evidence/leaf-hash.ts';
import { verifyInclusion } from '../modules/ledger/merkle.ts';
import { type TreeHead, verifyTreeHead } from '../modules/ledger/signing.ts';
import { CliFailure, UsageError } from './errors.ts';
import { optionError } from './options.ts';

type Output = (line: string) => void;

const USAGE = 'usage: verify-export FILE --key PUBLIC_KEY_BASE64';

/**
 * `consent-service verify-export FILE --key PUBLIC_KEY_BASE64` (docs/decisions/ledger.md): checks a JSONL
 * export made with includeProofs, offline (no database, no network): the final `{"treeHead": …}` line's
 * Ed25519 signature with the given raw public key, then for every event line its leaf hash
 * (SHA-256(0x00 ‖ JCS(line without receipt and ledger))), its receipt hash, and its RFC 9162
 * inclusion proof against that head. One line per failure, then a summary; returns the failure count.
 */
export async function verifyExportCommand(args: string[], out: Output): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: { key: { type: 'string' } }; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args, options: { key: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${optionError(error, ['key']).message}\n${USAGE}`);
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length > 0) throw new UsageError(USAGE);
  const publicKey = Buffer.from(parsed.values.key ?? '', 'base64');
  if (publicKey.length !== 32)
    throw new UsageError('--key must be the base64 of a raw 32-byte Ed25519 public key');
  if (!fs.existsSync(file)) throw new CliFailure(`no such file: ${file}`);

  let failures = 0;
  const fail = (where: string, reason: string) => {
    failures++;
    out(`FAIL ${where}: ${reason}`);
  };

  const head = readTreeHead(file);
  if (!head) {
    fail('last line', 'no {"treeHead": …} line ends the file (was it exported with includeProofs?)');
  } else if (!verifyTreeHead(head, publicKey)) {
    fail('tree head', `signature of log ${head.logId} size ${head.treeSize} does not verify with this key`);
  }

  let events = 0;
  let lineNumber = 0;
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text);
    } catch {
      fail(`line ${lineNumber}`, 'not JSON');
      continue;
    }
    if (line === null || typeof line !== 'object' || Array.isArray(line)) {
      fail(`line ${lineNumber}`, 'not a JSON object');
      continue;
    }
    if ('treeHead' in line) continue;
    events++;
    const where = `line ${lineNumber} (${typeof line.id === 'string' ? line.id : 'no id'})`;
    const reason = checkEvent(line, head);
    if (reason) fail(where, reason);
  }

  const against = head
    ? `tree head of ${head.logId} at size ${head.treeSize} (key ${head.keyId})`
    : 'no tree head';
  out(
    failures === 0
      ? `OK: ${events} events verified against the ${against}`
      : `${failures} failure${failures === 1 ? '' : 's'}; ${events} event lines checked against the ${against}`,
  );
  return failures;
}

/** Why an event line does not verify, or null when it does. */
function checkEvent(line: Record<string, unknown>, head: TreeHead | null): string | null {
  const ledger = line.ledger as { leafIndex?: unknown; auditPath?: unknown } | undefined;
  if (!ledger || !Number.isInteger(ledger.leafIndex) || !Array.isArray(ledger.auditPath)) {
    return 'no ledger {leafIndex, auditPath} member';
  }
  const path = ledger.auditPath as unknown[];
  if (!path.every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h)))
    return 'auditPath is not a list of hex hashes';
  let leaf: string;
  try {
    leaf = evidenceLeafHash(line);
  } catch {
    return 'the event cannot be canonicalized';
  }
  const receipt = (line.receipt as { hash?: unknown } | undefined)?.hash;
  if (receipt !== undefined && receipt !== leaf)
    return 'content does not match its receipt hash (the event was changed)';
  if (!head) return 'no tree head to check against';
  const ok = verifyInclusion(
    ledger.leafIndex as number,
    head.treeSize,
    Buffer.from(leaf, 'hex'),
    path.map((h) => Buffer.from(h as string, 'hex')),
    Buffer.from(head.rootHash, 'hex'),
  );
  return ok ? null : `inclusion proof of leaf ${ledger.leafIndex} fails against the tree head`;
}

/** The `{"treeHead": …}` object of the file's last non-empty line, read from its tail. */
function readTreeHead(file: string): TreeHead | null {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  try {
    for (let span = 64 * 1024; ; span *= 4) {
      const start = Math.max(0, size - span);
      const buffer = Buffer.alloc(size - start);
      fs.readSync(fd, buffer, 0, buffer.length, start);
      const lines = buffer.toString('utf8').split('\n');
      const last = lines.map((l) => l.trim()).filter(Boolean);
      // The tail must hold one whole line: a line break before it, or the start of the file.
      if (last.length > 1 || start === 0) {
        try {
          const head = (JSON.parse(last[last.length - 1] ?? 'null') as { treeHead?: TreeHead } | null)
            ?.treeHead;
          return head && typeof head === 'object' && isTreeHead(head) ? head : null;
        } catch {
          return null;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

function isTreeHead(head: TreeHead): boolean {
  return (
    typeof head.logId === 'string' &&
    Number.isInteger(head.treeSize) &&
    typeof head.rootHash === 'string' &&
    /^[0-9a-f]{64}$/.test(head.rootHash) &&
    typeof head.timestamp === 'string' &&
    typeof head.keyId === 'string' &&
    typeof head.signature === 'string'
  );
}
