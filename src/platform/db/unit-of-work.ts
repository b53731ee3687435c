import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Writes a request stages instead of making, for whoever opened the unit to commit later, together
 * with its own write, in one transaction. The idempotency layer opens one around a consent write:
 * the evidence event is staged while the handler builds its answer, then committed with the
 * Idempotency-Key record through the evidence group commit (shared with concurrent requests), and
 * the answer is sent only after that commit. A service that stages must be one whose caller
 * commits: it returns before anything is written.
 */
export class UnitOfWork<T = unknown> {
  readonly staged: T[] = [];

  stage(write: T): void {
    this.staged.push(write);
  }
}

const current = new AsyncLocalStorage<UnitOfWork>();

export function runInUnitOfWork<R>(unit: UnitOfWork, fn: () => Promise<R>): Promise<R> {
  return current.run(unit, fn);
}

/** The unit the current request stages into, if its caller opened one. */
export function currentUnitOfWork(): UnitOfWork | undefined {
  return current.getStore();
}
