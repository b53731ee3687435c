/**
 * Writes a request stages instead of making, for whoever opened the unit to commit later, together
 * with its own write, in one transaction. The idempotency layer opens one around a consent write:
 * the evidence event is staged while the handler builds its answer, then committed with the
 * Idempotency-Key record through the evidence group commit (shared with concurrent requests), and
 * the answer is sent only after that commit. The unit is passed explicitly (`request.unitOfWork`,
 * set by the idempotency layer): a service stages into the unit it is given and returns before
 * anything is written, so its caller must be the unit's owner or hand it on.
 */
export class UnitOfWork<T = unknown> {
  readonly staged: T[] = [];

  stage(write: T): void {
    this.staged.push(write);
  }
}
