import { describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../../../src/platform/db/group-commit.ts';

/**
 * The batching policy alone, with a commit that settles when the test says so (the consent write's
 * statements through a real database are counted in test/consent/consent-write-statements.test.ts).
 */
function harness(options: { maxInFlight: number; minBatchWhileBusy?: number }) {
  const batches: number[][] = [];
  const settle: Array<() => void> = [];
  const groupCommit = createGroupCommit<number, number>({
    commit: (items) => {
      batches.push(items);
      return new Promise((resolve) => settle.push(() => resolve(items)));
    },
    maxBatch: 100,
    ...options,
  });
  const submit = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => groupCommit.submit(from + i));
  return { batches, settle, submit };
}

/** Past the group commit's setImmediate and the promise callbacks after a settle. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('with minBatchWhileBusy, writes arriving during a commit gather until enough wait', async () => {
    const { batches, settle, submit } = harness({ maxInFlight: 4, minBatchWhileBusy: 8 });
    const first = submit(0, 1);
    await turn();
    expect(batches).toEqual([[0]]);

    submit(1, 5);
    await turn();
    // 5 waiting, fewer than 8: no second batch while the first commits.
    expect(batches).toHaveLength(1);

    const third = submit(6, 3);
    await turn();
    // 8 waiting: the next batch overlaps the first.
    expect(batches).toEqual([[0], [1, 2, 3, 4, 5, 6, 7, 8]]);

    submit(9, 2);
    settle[0]();
    await expect(Promise.all(first)).resolves.toEqual([0]);
    await turn();
    // Still one batch committing: the 2 new writes wait for it.
    expect(batches).toHaveLength(2);

    settle[1]();
    await expect(Promise.all(third)).resolves.toEqual([6, 7, 8]);
    await turn();
    // Nothing committing: whatever waits goes at once.
    expect(batches.at(-1)).toEqual([9, 10]);
  });

  it('by default a write starts a batch at once while up to maxInFlight commit', async () => {
    const { batches, submit } = harness({ maxInFlight: 2 });
    submit(0, 1);
    await turn();
    submit(1, 1);
    await turn();
    submit(2, 1);
    await turn();
    expect(batches).toEqual([[0], [1]]);
  });
});

// store-independent: the group-commit batching policy with a fake commit
