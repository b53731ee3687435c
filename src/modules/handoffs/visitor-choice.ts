/**
 * A visitor's current choice on a channel and whether it still holds: what both redeems (of an
 * origin's token and of an app's) weigh the handed choice against.
 */
import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import type { EvidenceService, RecordedEvent } from '../evidence/evidence.service.ts';
import type { Site } from '../sites/sites.service.ts';
import { handoffsRepo } from './handoffs.repo.ts';

/** An evidence event as the evidence module hands it out. */
export type EvidenceRow = RecordedEvent['row'];

const DAY_MS = 86_400_000;

/** What finding a visitor's choice needs of the handoffs service's deps. */
export interface ChoiceDeps {
  store: Pick<Store, 'db'>;
  evidence: Pick<EvidenceService, 'newestDecisionOf' | 'findEvent'>;
}

/** The visitor's own decision an event stands for: a handed-over one stands for the one it hands. */
async function ownDecision(
  deps: ChoiceDeps,
  event: EvidenceRow | null,
  site: Site,
): Promise<EvidenceRow | null> {
  // A handoff from an app stands for itself: the app's event decided another channel's purposes.
  if (event?.source !== 'handoff' || !event.handoff || 'fromApp' in event.handoff) return event;
  return deps.evidence.findEvent(site.channel, event.handoff.eventId);
}

/**
 * A visitor's current choice on the channel: the newer of their own newest decision and the one
 * handed to them by their newest redeem (a choice travels on from a target), or null.
 */
export async function choiceOf(deps: ChoiceDeps, site: Site, pseudonym: string): Promise<EvidenceRow | null> {
  const { store, evidence } = deps;
  const { channel } = site;
  const own = await ownDecision(deps, await evidence.newestDecisionOf(channel, channel.id, pseudonym), site);
  const handedId = await handoffsRepo.newestHandedTo(store.db, site.channel, pseudonym);
  const handed = handedId ? await evidence.findEvent(channel, handedId) : null;
  if (!own || !handed) return own ?? handed;
  return handed.recordedAt.getTime() > own.recordedAt.getTime() ? handed : own;
}

/** Whether a decision still holds for the SDK: younger than consentMaxAgeDays (or the refusal cooldown). */
export function holds(clock: Clock, site: Site, decision: EvidenceRow): boolean {
  const { consentMaxAgeDays, rejectCooldownDays } = site.config;
  const age = clock.now().getTime() - decision.recordedAt.getTime();
  return age <= Math.max(consentMaxAgeDays, rejectCooldownDays) * DAY_MS && decision.decisions !== null;
}
