import fs from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The IAB TCF CMP API stub (`@iabtechlabtcf/stub`, IAB Tech Lab's own, ES5 and minified) that the
 * snippet of a TCF channel puts before sdk.js: from the first line of the page `window.__tcfapi`
 * exists and queues vendors' calls (answering `ping` as a stub), it adds the `__tcfapiLocator` frame
 * and answers iframes' `__tcfapiCall` messages through whatever `__tcfapi` is at the time. The SDK's
 * tcf.js starts @iabtechlabtcf/cmpapi, which takes over the queue and the function.
 *
 * Read from the package once per process. The file is a fixed text with no data of the channel or
 * the visitor in it, so it needs no escaping; the one check is that it cannot end the inline
 * `<script>` element it is put in. It is wrapped in a function whose `module` parameter is
 * undefined: the file exports itself instead of running when a global `module` exists, and a
 * page may have one.
 */
let cached: string | null = null;

export function tcfStub(): string {
  if (cached !== null) return cached;
  const file = createRequire(import.meta.url).resolve('@iabtechlabtcf/stub');
  const source = fs.readFileSync(file, 'utf8').trim();
  if (/<\/script|<!--/i.test(source))
    throw new Error('@iabtechlabtcf/stub cannot be inlined in a <script> element');
  cached = `(function(module){${source}})();`;
  return cached;
}
