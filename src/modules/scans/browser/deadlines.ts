/** A scan that could not be done; the message is shown to the customer as the scan's failure reason. */
export class ScanFailure extends Error {
  override name = 'ScanFailure';
}

/** "15 s", "1.5 s": how limits read in failure reasons. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

export function sleep(ms: number, stop?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (stop?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    stop?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      stop?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Settles with `work`, or rejects with `onTimeout()` after `ms`, or with `stop.reason` once `stop`
 * aborts, whichever comes first. Playwright calls raced away keep running until the browser is
 * closed, so their late rejection is swallowed here instead of surfacing as an unhandled one.
 */
export function within<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  stop: AbortSignal,
): Promise<T> {
  work.catch(() => {});
  if (stop.aborted) return Promise.reject(stop.reason);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(onTimeout())), Math.max(0, ms));
    const onStop = () => finish(() => reject(stop.reason));
    stop.addEventListener('abort', onStop, { once: true });
    work.then(
      (value) => finish(() => resolve(value)),
      (error) => finish(() => reject(error)),
    );
    function finish(settle: () => void) {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      settle();
    }
  });
}
