/** The name IAB GPP gives the frame by which iframes find the window that answers `__gpp` calls. */
const LOCATOR = '__gppLocator';

type Gpp = (...args: unknown[]) => unknown;
interface Message {
  data: unknown;
  source: { postMessage(message: unknown, targetOrigin: string): void } | null;
}
interface Element {
  name: string;
  style: { display: string };
}
/**
 * The little of the page this module touches, typed here rather than from the DOM library: the unit
 * tests import it into the service's type program (no DOM), and run it on a stand-in window. Read
 * when called, not on import, for the same reason.
 */
interface Page {
  __gpp?: Gpp;
  frames: unknown;
  addEventListener(type: 'message', listener: (event: Message) => void): void;
  setTimeout(fn: () => void, ms: number): unknown;
  document: {
    body: { appendChild(element: Element): unknown } | null;
    createElement(tag: 'iframe'): Element;
  };
}
const page = () => globalThis as unknown as Page;

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
  const win = page();
  const addFrame = () => {
    if ((win.frames as Record<string, unknown>)[LOCATOR]) return;
    const { body } = win.document;
    if (!body) return void win.setTimeout(addFrame, 10);
    const frame = win.document.createElement('iframe');
    frame.style.display = 'none';
    frame.name = LOCATOR;
    body.appendChild(frame);
  };
  addFrame();
  win.addEventListener('message', (event) => {
    let data = event.data as any;
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
        event.source?.postMessage(text ? JSON.stringify(reply) : reply, '*');
      },
      call.parameter,
      call.version,
    );
  });
}
