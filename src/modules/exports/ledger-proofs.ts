import type { Prover } from '../ledger/ledger.service.ts';
import type { ExportProofs } from './export-job.ts';
import type { ExportDecorator } from './export-writer.ts';

/** What the exports need of the ledger service: a prover for one tenant's log. */
export interface LedgerProver {
  prover(scope: { organizationId: string; environment: 'test' | 'live' }): Promise<Prover | null>;
}

/**
 * `includeProofs` (docs/decisions/ledger.md): each line gets `ledger {leafIndex, auditPath}` against one
 * signed tree head, and the file ends with `{"treeHead": …}`. The prover seals what is queued first, so
 * every event of the export's snapshot (recorded before the export was asked for) is covered; one
 * that is not fails the attempt (the retry seals again) rather than leaving a line unprovable.
 */
export function ledgerProofs(ledger: LedgerProver): ExportProofs {
  return async (exportRow): Promise<ExportDecorator> => {
    const prover = await ledger.prover({
      organizationId: exportRow.organizationId,
      environment: exportRow.environment,
    });
    return {
      csvColumns: ['ledger.leafIndex', 'ledger.auditPath'],
      async decorate(items) {
        if (items.length === 0) return;
        if (!prover) throw new Error('events to prove but the log has no signed tree head');
        const proofs = await prover.prove(items.map((item) => item.row.id));
        for (const item of items) {
          const proof = proofs.get(item.row.id);
          if (!proof) throw new Error(`event ${item.row.id} is not under the tree head yet`);
          item.line.ledger = { leafIndex: proof.leafIndex, auditPath: proof.auditPath };
        }
      },
      async trailer(format) {
        // A CSV has no place for the head; the service accepts includeProofs with JSONL only.
        if (format !== 'jsonl') throw new Error('proofs are written to JSONL exports only');
        return `${JSON.stringify({ treeHead: prover?.treeHead ?? null })}\n`;
      },
    };
  };
}
