/** Time source of the service; tests pass a settable one to move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that tests can move forward. */
export function createManualClock(
  start = new Date(),
): Clock & { advance(ms: number): void; set(d: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (d) => {
      current = d.getTime();
    },
  };
}
