/** Runs `fn` once document.body exists (at once when it does). */
export function whenBody(fn: () => void) {
  if (document.body) fn();
  else document.addEventListener('DOMContentLoaded', fn, { once: true });
}

type IdleWindow = { requestIdleCallback?: (fn: () => void, options?: { timeout: number }) => number };

/**
 * Runs `fn` when the page is idle (within two seconds at most), so work that can wait stays off the
 * task that draws the banner: requestIdleCallback where the browser has it (not Safari), else a timer.
 */
export function whenIdle(fn: () => void) {
  const idle = (window as unknown as IdleWindow).requestIdleCallback;
  if (idle) idle(fn, { timeout: 2000 });
  else setTimeout(fn, 1);
}
