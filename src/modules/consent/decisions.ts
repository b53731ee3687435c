import { AppError, type FieldError, validationFailed } from '../../platform/http/errors.ts';
import type { VisitorConfig } from '../channels/channels.service.ts';
import type { Decision } from '../evidence/evidence.service.ts';

/**
 * The decisions to record for one answer to one notice (the config version the visitor saw).
 * Pure, so the rules are tested on their own. Rules:
 *
 * - a key that is not a purpose of that config version → 422 unknown_purpose;
 * - denying a required purpose → 422 validation_failed; a required purpose left out is granted
 *   (strictly necessary processing needs no consent, and the banner shows it checked and disabled);
 * - any other purpose of the notice the visitor did not decide is recorded as denied: silence is
 *   not consent (GDPR Art. 4(11), recital 32), and the record then says explicitly what the visitor
 *   was asked and did not accept;
 * - with `gpc: true`, a purpose with gpcOptOut is recorded as denied even if sent as granted: the
 *   browser's Global Privacy Control signal is a legally binding opt-out in several US states, and
 *   a grant next to it is more likely an SDK default than an informed choice. Not an error, so an
 *   SDK that forgets to apply GPC still gets its other decisions recorded. Except with
 *   `explicitChoiceWins` (an explicit choice in an opt-out region, docs/regions.md): a visitor who opts
 *   back in after the signal was honoured is recorded as they chose.
 *
 * Every purpose of the notice appears in the result, in the notice's order.
 */
export function resolveDecisions(
  config: VisitorConfig,
  input: { decisions: Record<string, Decision>; gpc: boolean; explicitChoiceWins?: boolean },
): Record<string, Decision> {
  const purposes = new Map(config.purposes.map((p) => [p.key, p]));
  const unknown = Object.keys(input.decisions).filter((key) => !purposes.has(key));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).map((key) => (key.length > 40 ? `${key.slice(0, 40)}…` : key));
    throw new AppError(
      'unknown_purpose',
      `Not a purpose of configVersion ${config.configVersion}: ${shown.join(', ')}${unknown.length > 5 ? ', …' : ''}.`,
      {
        errors: unknown
          .slice(0, 20)
          .map((key) => ({ path: pointer(key), message: 'is not a purpose of this configVersion' })),
      },
    );
  }
  const deniedRequired: FieldError[] = config.purposes
    .filter((p) => p.required && input.decisions[p.key] === 'denied')
    .map((p) => ({ path: pointer(p.key), message: 'is a required purpose and cannot be denied' }));
  if (deniedRequired.length > 0) throw validationFailed(deniedRequired);

  const resolved: Record<string, Decision> = {};
  for (const purpose of config.purposes) {
    const given = input.decisions[purpose.key];
    if (purpose.required) resolved[purpose.key] = 'granted';
    else if (input.gpc && purpose.gpcOptOut && !(input.explicitChoiceWins && given !== undefined))
      resolved[purpose.key] = 'denied';
    else resolved[purpose.key] = given ?? 'denied';
  }
  return resolved;
}

/**
 * The outcome the analytics count: the shared rule (src/shared/decision-outcome.ts), which
 * migration 0032 computed in SQL for the events recorded before the column.
 */
export { decisionOutcome } from '../../shared/decision-outcome.ts';

/** JSON Pointer of a decision (RFC 6901 escaping). */
function pointer(key: string): string {
  return `/decisions/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
