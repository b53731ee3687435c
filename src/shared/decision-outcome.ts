/** What a decision amounts to, as the analytics count it and the console shows it. */
export type DecisionOutcome = 'accept_all' | 'reject_all' | 'custom';

/**
 * How a decision is counted (the `outcome` stored on its event, which the analytics statement
 * reads, and what the console's Evidence shows): accept_all when no optional purpose of the notice
 * is denied (also when there is none), reject_all when some are and none is granted, custom
 * otherwise. A purpose the decisions do not name counts as denied, as the service records it.
 * Shared so the service and the console cannot disagree.
 */
export function decisionOutcome(
  purposes: ReadonlyArray<{ key: string; required: boolean }>,
  decisions: Record<string, string>,
): DecisionOutcome {
  let granted = 0;
  let denied = 0;
  for (const p of purposes) {
    if (p.required) continue;
    if (decisions[p.key] === 'granted') granted++;
    else denied++;
  }
  return denied === 0 ? 'accept_all' : granted === 0 ? 'reject_all' : 'custom';
}
