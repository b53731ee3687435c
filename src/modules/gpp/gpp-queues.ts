import type { GppOwner, GppRefusal } from './gpp.service.ts';

/** A string waiting for a child, or being decoded by one. */
export interface Job {
  value: string;
  owner: GppOwner;
  resolve: (refusal: GppRefusal | null) => void;
  reject: (error: Error) => void;
  expiry: NodeJS.Timeout;
}

/**
 * The waiting strings of the GPP decoder (gpp.service.ts), one queue per organization, served in
 * turn (round robin), and how many children each organization holds: no organization takes more
 * than `perOrganization` at once, so another's string always finds one that is not busy with it.
 */
export function createOrganizationQueues(perOrganization: number) {
  /** Waiting strings by organization, in the order their turns come (round robin). */
  const queues = new Map<string, Job[]>();
  const inFlight = new Map<string, number>();
  let waiting = 0;

  function dequeue(job: Job): void {
    clearTimeout(job.expiry);
    const queue = queues.get(job.owner.organizationId);
    const index = queue ? queue.indexOf(job) : -1;
    if (!queue || index === -1) return;
    queue.splice(index, 1);
    waiting--;
    if (queue.length === 0) queues.delete(job.owner.organizationId);
  }

  return {
    dequeue,

    /** The strings waiting, over all organizations. */
    waiting: () => waiting,

    /** The strings of an organization waiting, in order (empty when none). */
    of: (organizationId: string): Job[] => queues.get(organizationId) ?? [],

    /** Every waiting string, as they are now (dequeuing them while going through is safe). */
    all: (): Job[] => [...queues.values()].flatMap((queue) => [...queue]),

    /** Puts a string at the end of its organization's queue. */
    enqueue(job: Job): void {
      const queue = queues.get(job.owner.organizationId) ?? [];
      queue.push(job);
      waiting++;
      queues.set(job.owner.organizationId, queue);
    },

    /** The next string to decode: the first organization in turn that may take another child. */
    next(): Job | undefined {
      for (const [organizationId, queue] of queues) {
        if ((inFlight.get(organizationId) ?? 0) >= perOrganization) continue;
        const job = queue[0];
        dequeue(job);
        // Served: its next string comes after every other organization's.
        if (queues.delete(organizationId)) queues.set(organizationId, queue);
        return job;
      }
      return undefined;
    },

    taken(organizationId: string): void {
      inFlight.set(organizationId, (inFlight.get(organizationId) ?? 0) + 1);
    },

    released(organizationId: string): void {
      const count = (inFlight.get(organizationId) ?? 1) - 1;
      if (count === 0) inFlight.delete(organizationId);
      else inFlight.set(organizationId, count);
    },
  };
}
