import { allowed } from './decisions.ts';
import type { Decisions } from './types.ts';

/**
 * Stops what can be stopped when a purpose is no longer granted (an opt-out from "Your Privacy
 * Choices", or reset()): an iframe this SDK activated is replaced by a blocked copy (`data-src`, no
 * `src`), which unloads the embedded page; activateBlocked loads it again if the purpose is granted
 * later. A script that already ran cannot be unrun: it sees Consent Mode turn denied and the
 * `consentservice:change` event, and it is not run again on later pages.
 */
export function deactivateDenied(decisions: Decisions): void {
  const frames = document.querySelectorAll<HTMLIFrameElement>(
    'iframe[data-consent-activated][data-consent-purpose]',
  );
  for (const el of Array.from(frames)) {
    if (allowed(el.getAttribute('data-consent-purpose'), decisions)) continue;
    const copy = el.cloneNode() as HTMLIFrameElement;
    copy.setAttribute('data-src', el.getAttribute('src') || '');
    copy.removeAttribute('src');
    copy.removeAttribute('data-consent-activated');
    el.replaceWith(copy);
  }
}
