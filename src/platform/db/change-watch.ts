import type { Store } from './store.ts';

/**
 * What an in-process cache needs from store notifications on one channel (`store.notify`): every
 * event drops the whole cache; a generation tells a load begun before a change, whose result must
 * not be cached; and `listening` says whether notifications reach this process now. Only a
 * (re)established LISTEN sets it: a local notification says nothing of other replicas.
 */
export function watchChanges(listen: Store['listen'], channel: string, drop: () => void) {
  let generation = 0;
  let listening = false;
  const stop = listen(channel, (event) => {
    generation++;
    drop();
    if (event === 'listening') listening = true;
    if (event === 'lost') listening = false;
  });
  return {
    /** Bumped by every drop: compare it before and after a load. */
    generation: () => generation,
    /** Whether the cache may be trusted beyond its own short TTL. */
    listening: () => listening,
    stop,
  };
}

export type ChangeWatch = ReturnType<typeof watchChanges>;
