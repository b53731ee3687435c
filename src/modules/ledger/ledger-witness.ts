import fs from 'node:fs';
import path from 'node:path';
import type { LedgerScope } from './ledger.repo.ts';

/** The newest tree head a sealer signed for a scope, as it remembers it outside the database. */
export interface WitnessedHead {
  logId: string;
  treeSize: number;
  rootHash: Buffer;
  /** The head's timestamp: a head signed before an operator accepted a fork is superseded by it. */
  signedAt: Date;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Where the sealers remember the newest head they signed per log: one small file per scope under
 * `DATA_DIR/ledger-witness/` (written whole and renamed into place), and this process's memory. A
 * database failover cannot take it back, as it can take back the rows of `ledger_tree_heads`: a
 * standby promoted behind the primary has neither the lost leaves nor their heads, and only this
 * record shows that a head was signed over them (docs/decisions/ledger.md, "Forks"). Processes that
 * share DATA_DIR (as exports already require) share what they signed; where the directory cannot
 * be written, the memory still covers a failover under a running process.
 */
export function createLedgerWitness(dataDir: string) {
  const dir = path.join(dataDir, 'ledger-witness');
  const remembered = new Map<string, WitnessedHead>();
  const fileOf = (scope: LedgerScope) =>
    SAFE_ID.test(scope.organizationId)
      ? path.join(dir, `${scope.organizationId}.${scope.environment}.json`)
      : null;
  const keyOf = (scope: LedgerScope) => `${scope.organizationId}/${scope.environment}`;

  function readFile(file: string | null): WitnessedHead | null {
    if (!file) return null;
    try {
      const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      if (
        typeof raw.logId !== 'string' ||
        !Number.isSafeInteger(raw.treeSize) ||
        typeof raw.rootHash !== 'string'
      )
        return null;
      return {
        logId: raw.logId,
        treeSize: raw.treeSize as number,
        rootHash: Buffer.from(raw.rootHash, 'hex'),
        signedAt: new Date(String(raw.signedAt)),
      };
    } catch {
      return null;
    }
  }

  return {
    /** The newest head remembered for the scope: the file (any process's), else this process's. */
    read(scope: LedgerScope): WitnessedHead | null {
      return readFile(fileOf(scope)) ?? remembered.get(keyOf(scope)) ?? null;
    },

    /** Remembers a head just signed (its transaction committed). */
    write(scope: LedgerScope, head: WitnessedHead): void {
      remembered.set(keyOf(scope), head);
      const file = fileOf(scope);
      if (!file) return;
      const body = JSON.stringify({
        logId: head.logId,
        treeSize: head.treeSize,
        rootHash: head.rootHash.toString('hex'),
        signedAt: head.signedAt.toISOString(),
      });
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(temporary, body, { mode: 0o600 });
        fs.renameSync(temporary, file);
      } catch {
        // A directory that cannot be written: this process's memory still holds the head.
        fs.rmSync(temporary, { force: true });
      }
    },
  };
}

export type LedgerWitness = ReturnType<typeof createLedgerWitness>;
