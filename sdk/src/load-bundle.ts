/**
 * Loads `src` (a lazily loaded bundle of the SDK: gpp.js, tcf.js) and resolves with what `start`
 * makes of what it registered on window under `name`. Null when the bundle fails to load, registers
 * nothing, or `start` fails or takes longer than `ms`: the SDK goes on without it. Never started
 * after the timeout, when the SDK has already gone on.
 */
export function loadBundle<R, T>(
  src: string,
  name: string,
  ms: number,
  start: (registered: R) => T | Promise<T>,
): Promise<T | null> {
  return new Promise((resolve) => {
    const fail = (error?: unknown) => {
      if (error) console.warn('[consent-service]', name, error);
      resolve(null);
    };
    let timer = setTimeout(() => {
      timer = 0;
      fail();
    }, ms) as unknown as number;
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => {
      const registered = timer && (window as unknown as Record<string, R>)[name];
      if (!registered) return fail();
      new Promise<T>((ok) => ok(start(registered))).then((value) => {
        clearTimeout(timer);
        resolve(value);
      }, fail);
    };
    script.onerror = () => fail();
    document.head.appendChild(script);
  });
}
