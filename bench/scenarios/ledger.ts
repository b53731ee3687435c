import { loadConfig } from '../../src/config.ts';
import { SEAL_BATCH } from '../../src/modules/ledger/sealer.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createServices } from '../../src/services.ts';
import { sequentialLatency } from '../lib/load.ts';
import type { BenchStore, Fixture } from '../lib/setup.ts';

/**
 * f. The ledger: seals everything queued for the organization's live log (the bulk-loaded events
 * and the consent writes), timed, then proves `proofs` random seeded events against the new head
 * with the ledger service (no HTTP), sequentially.
 */
export async function ledgerScenario(
  bench: BenchStore,
  fixture: Fixture,
  dataDir: string,
  seeded: number,
  proofs: number,
  /** Events to seal at most (in batches of the store's SEAL_BATCH); Infinity seals everything queued. */
  maxEvents: number,
) {
  const store = await bench.open();
  try {
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: bench.env.DATABASE_URL ?? '' });
    const services = createServices({ store, clock: systemClock, config });
    const scope = { organizationId: fixture.organizationId, environment: fixture.environment };
    const started = process.hrtime.bigint();
    const { appended, head } = await services.ledger.sealer.sealLog(scope, {
      maxBatches: Math.ceil(maxEvents / SEAL_BATCH[store.kind]),
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const proof = await sequentialLatency(proofs, async () => {
      // The oldest seeded events are sealed first (recordedAt order): prove among those in the tree.
      const n = 1 + Math.floor(Math.random() * Math.min(seeded, appended));
      const id = `evt_bench${String(n).padStart(12, '0')}`;
      const result = await services.ledger.inclusionProof(store.scope(null), scope, id);
      if (result.leafHash.length !== 64) throw new Error('bad proof');
    });
    return {
      sealed: appended,
      treeSize: head?.treeSize ?? null,
      sealSeconds: seconds,
      sealedPerSec: appended / seconds,
      proof,
    };
  } finally {
    await store.close();
  }
}
