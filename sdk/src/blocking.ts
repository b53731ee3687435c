import { allowed } from './decisions.ts';
import type { Decisions } from './types.ts';

const BLOCKED_SCRIPTS = 'script[type="text/plain"][data-consent-purpose]';
const BLOCKED_FRAMES = 'iframe[data-consent-purpose][data-src]';

/**
 * Runs the blocked elements whose purposes are all granted. A `type="text/plain"` script never runs by
 * itself; it is replaced by a real script element with the same attributes (its `data-type`, if any,
 * becomes the new type, e.g. "module"). Dynamic scripts default to async; ones that were not marked
 * async keep their document order instead.
 */
export function activateBlocked(decisions: Decisions): void {
  for (const el of Array.from(document.querySelectorAll<HTMLScriptElement>(BLOCKED_SCRIPTS))) {
    if (!allowed(el.getAttribute('data-consent-purpose'), decisions)) continue;
    const script = document.createElement('script');
    for (const attr of Array.from(el.attributes)) {
      if (attr.name !== 'type' && attr.name !== 'data-type') script.setAttribute(attr.name, attr.value);
    }
    const type = el.getAttribute('data-type');
    if (type) script.type = type;
    if (!el.hasAttribute('async')) script.async = false;
    if (!el.src) script.text = el.text;
    script.setAttribute('data-consent-activated', '');
    el.replaceWith(script);
  }
  for (const el of Array.from(document.querySelectorAll<HTMLIFrameElement>(BLOCKED_FRAMES))) {
    if (!allowed(el.getAttribute('data-consent-purpose'), decisions)) continue;
    el.src = el.getAttribute('data-src') || '';
    el.removeAttribute('data-src');
    el.setAttribute('data-consent-activated', '');
  }
}

/**
 * The SDK loads async, so blocked elements may still be parsed, or injected later by the page:
 * watch the document and activate them as they appear, under the current decisions. The caller (one
 * SDK instance) keeps the observer and starts one only while it has none.
 */
export function watchBlocked(current: () => Decisions | null): MutationObserver | null {
  if (typeof MutationObserver === 'undefined') return null;
  const observer = new MutationObserver(() => {
    const decisions = current();
    if (decisions) activateBlocked(decisions);
  });
  observer.observe(document.documentElement, { childList: true, subtree: true });
  return observer;
}
