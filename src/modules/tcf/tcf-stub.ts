import fs from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The version of IAB's CMP API the service implements, as `ping` reports it: the stub's answer here,
 * and the SDK's (sdk/src/tcf-answers.ts, for tcf.js too), which must say the same.
 */
export const CMP_API_VERSION = '2.2';

/**
 * The IAB TCF CMP API stub (`@iabtechlabtcf/stub`, IAB Tech Lab's own, ES5 and minified) that the
 * snippet of a TCF channel puts before sdk.js: from the first line of the page `window.__tcfapi`
 * exists and queues vendors' calls (answering `ping` as a stub), it adds the `__tcfapiLocator` frame
 * and answers iframes' `__tcfapiCall` messages through whatever `__tcfapi` is at the time. The SDK
 * then takes over the queue and the function: tcf.js (@iabtechlabtcf/cmpapi) in opt-in regions, its
 * own small CMP elsewhere.
 *
 * Read from the package once per process. The file is a fixed text with no data of the channel or
 * the visitor in it, so it needs no escaping; the one check is that it cannot end the inline
 * `<script>` element it is put in. It is wrapped in a function whose `module` parameter is
 * undefined: the file exports itself instead of running when a global `module` exists, and a
 * page may have one. When the stub installed itself (not when another CMP was found there first),
 * two things are added after it:
 * - `apiVersion` in its `ping`, which the CMP API asks of a stub and IAB's stub leaves out;
 * - the answer to frames' `__tcfapiCall` messages. IAB's stub forgets the calling frame as soon as
 *   `__tcfapi` returns, so an answer given later (`getVendorList` fetching a version, every event
 *   after the first of a frame's `addEventListener`) never reached the frame. This handler keeps
 *   the frame for as long as the callback is called; it is registered before the stub's own
 *   handler, so it runs first, and stops that one for these messages (one answer per call).
 */
let cached: string | null = null;

export function tcfStub(): string {
  if (cached !== null) return cached;
  const file = createRequire(import.meta.url).resolve('@iabtechlabtcf/stub');
  const source = fs.readFileSync(file, 'utf8').trim();
  if (/<\/script|<!--/i.test(source))
    throw new Error('@iabtechlabtcf/stub cannot be inlined in a <script> element');
  const withApiVersion =
    "w.__tcfapi=function(c,v,b){return c==='ping'&&typeof b=='function'" +
    `?s(c,v,function(p){p.apiVersion='${CMP_API_VERSION}';b(p)}):s.apply(this,arguments)};`;
  // Registered before the stub's own handler (listeners run in that order), acting once it installed.
  const frameAnswers =
    "w.addEventListener('message',function(e){var j=typeof e.data=='string',d=e.data;if(!on)return;if(j)try{d=JSON.parse(d)}catch(x){return}" +
    "var c=d&&typeof d=='object'&&d.__tcfapiCall,r=e.source;if(!c)return;e.stopImmediatePropagation();" +
    'w.__tcfapi(c.command,c.version,function(v,o){var a={__tcfapiReturn:{returnValue:v,success:o,callId:c.callId}};' +
    "r&&r.postMessage&&r.postMessage(j?JSON.stringify(a):a,'*')},c.parameter)},false);";
  cached =
    `(function(w){var on=false,f=w.__tcfapi;${frameAnswers}(function(module){${source}})();var s=w.__tcfapi;` +
    `if(typeof s!='function'||s===f)return;on=true;${withApiVersion}})(window);`;
  return cached;
}
