import { type GppSectionsMode, supportedUsApis } from '../../shared/us-gpp-sections.ts';

/**
 * The IAB GPP CMP API stub the snippet puts before sdk.js when the channel has a
 * gppCmpId, written after the "stub code" of the IAB's GPP CMP API specification (v1.1): from the
 * first line of the page `window.__gpp` is a function, so vendors' tags may call it before the SDK
 * (and its lazily loaded gpp.js) arrive. It answers the generic commands at once as a stub (`ping`:
 * cmpStatus "stub", signalStatus "not ready"; `hasSection` false; `getSection`/`getField` null),
 * keeps `addEventListener` listeners in `__gpp('events')` and queues any other command in
 * `__gpp('queue')`: @iabgpp/cmpapi's CmpApi reads both when it starts (`__gpp()` /
 * `__gpp('events')`), answers the queue and adopts the listeners. It also adds the `__gppLocator`
 * frame and answers iframes' `__gppCall` messages through whatever `__gpp` is at the time, so the
 * real CMP answers them once it has replaced the stub. ES5, one line: it runs inline, before
 * anything else, in every browser the page supports.
 */
const STUB = [
  '(function(w,d){',
  "if(typeof w.__gpp=='function')return;",
  'var q=[],ev=[],n=0;',
  "function ping(){return{gppVersion:'1.1',cmpStatus:'stub',cmpDisplayStatus:'hidden',signalStatus:'not ready',",
  "supportedAPIs:SUPPORTED,cmpId:CMP_ID,sectionList:[],applicableSections:[0],gppString:'',parsedSections:{}}}",
  "function g(c,cb,p){var a=arguments,f=typeof cb=='function'?cb:function(){};",
  "if(!a.length||(a.length==1&&c=='queue'))return q;",
  "if(a.length==1&&c=='events')return ev;",
  "if(c=='ping')f(ping(),true);",
  "else if(c=='addEventListener'){ev.push({id:++n,callback:f,parameter:p});",
  "f({eventName:'listenerRegistered',listenerId:n,data:true,pingData:ping()},true)}",
  "else if(c=='removeEventListener'){var ok=false;",
  'for(var i=0;i<ev.length;i++)if(ev[i].id==p){ev.splice(i,1);ok=true;break}',
  "f({eventName:'listenerRemoved',listenerId:p,data:ok,pingData:ping()},true)}",
  "else if(c=='hasSection')f(false,true);",
  "else if(c=='getSection'||c=='getField')f(null,true);",
  'else q.push([].slice.call(a))}',
  'g.queue=q;g.events=ev;w.__gpp=g;',
  "w.addEventListener('message',function(e){var s=typeof e.data=='string',m;",
  'try{m=s?JSON.parse(e.data):e.data}catch(x){return}',
  'var c=m&&m.__gppCall;if(!c)return;',
  'w.__gpp(c.command,function(v,ok){var r={__gppReturn:{returnValue:v,success:ok,callId:c.callId}};',
  "if(e.source)e.source.postMessage(s?JSON.stringify(r):r,'*')},c.parameter,c.version)});",
  '(function f(){if(w.frames.__gppLocator)return;if(!d.body)return setTimeout(f,10);',
  "var i=d.createElement('iframe');i.style.display='none';i.name='__gppLocator';d.body.appendChild(i)})()",
  '})(window,document);',
].join('');

/**
 * The stub for a channel's CMP id (an integer 1–65535, so nothing but digits reaches the script).
 * `supportedAPIs` lists what the SDK's gpp.js may provide on this channel's pages: US National for
 * US opt-out visitors (with `gppSections: "state"`, the state sections as well), and, on a TCF
 * channel, the EU TCF section for visitors of opt-in regions.
 */
export function gppStub(cmpId: number, options: { tcf?: boolean; sections?: GppSectionsMode } = {}): string {
  if (!Number.isInteger(cmpId) || cmpId < 1 || cmpId > 65535) throw new RangeError('gppCmpId');
  // Constants of src/shared/us-gpp-sections.ts: digits, a colon and lowercase letters only.
  const apis = [...(options.tcf ? ['2:tcfeuv2'] : []), ...supportedUsApis(options.sections)];
  const supported = `[${apis.map((api) => `'${api}'`).join(',')}]`;
  return STUB.replace('CMP_ID', String(cmpId)).replace('SUPPORTED', supported);
}
