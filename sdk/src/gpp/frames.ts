/** The name IAB GPP gives the frame by which iframes find the window that answers `__gpp` calls. */
const LOCATOR = '__gppLocator';

type Gpp = (...args: unknown[]) => unknown;
// Read when called, not on import: the unit tests import this module outside a browser.
const page = () => window as unknown as { __gpp?: Gpp };

/**
 * Whether the snippet's stub is on the page. When it is not (a snippet pasted before the channel had
 * a gppCmpId), `CmpApi` would call a missing `__gpp` for the stub's queue and listeners and log the
 * TypeError; an empty stand-in tells it there are none.
 */
export function stubbed(): boolean {
  if (typeof page().__gpp === 'function') return true;
  page().__gpp = () => [];
  return false;
}

/**
 * What the stub does for iframes, for pages without it: the locator frame vendors' iframes look for,
 * and a `message` handler that answers their `__gppCall` messages through `__gpp`.
 */
export function answerFrames() {
  const addFrame = () => {
    if ((window.frames as unknown as Record<string, unknown>)[LOCATOR]) return;
    if (!document.body) return void setTimeout(addFrame, 10);
    const frame = document.createElement('iframe');
    frame.style.display = 'none';
    frame.name = LOCATOR;
    document.body.appendChild(frame);
  };
  addFrame();
  addEventListener('message', (event) => {
    let data = event.data;
    const text = typeof data === 'string';
    try {
      if (text) data = JSON.parse(data);
    } catch {
      return;
    }
    const call = data?.__gppCall;
    if (!call || typeof call !== 'object') return;
    page().__gpp?.(
      call.command,
      (returnValue: unknown, success: boolean) => {
        const reply = { __gppReturn: { returnValue, success, callId: call.callId } };
        (event.source as Window | null)?.postMessage(text ? JSON.stringify(reply) : reply, '*');
      },
      call.parameter,
      call.version,
    );
  });
}
