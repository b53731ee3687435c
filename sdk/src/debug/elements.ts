export interface BlockedElement {
  el: Element;
  /** e.g. `script /analytics.js`, `inline script "window.ran.push(…"`, `iframe /ad.html`. */
  what: string;
  purposes: string;
  ran: boolean;
}

const shorten = (text: string, max = 48) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * The page's elements under consent (sdk/src/blocking.ts): scripts `type="text/plain"` with
 * `data-consent-purpose` until they run (then a real script marked `data-consent-activated`), and
 * iframes whose `data-src` waits for their purposes (marked the same once loaded).
 */
export function blockedElements(root: ParentNode): BlockedElement[] {
  const out: BlockedElement[] = [];
  for (const el of Array.from(
    root.querySelectorAll('script[data-consent-purpose], iframe[data-consent-purpose]'),
  )) {
    const ran = el.hasAttribute('data-consent-activated');
    const purposes = el.getAttribute('data-consent-purpose') || '';
    if (el.tagName === 'SCRIPT') {
      // A script under consent that is neither blocked nor activated is not the SDK's to run.
      if (!ran && el.getAttribute('type') !== 'text/plain') continue;
      const src = el.getAttribute('src');
      out.push({
        el,
        what: src ? `script ${src}` : `inline script "${shorten(el.textContent || '')}"`,
        purposes,
        ran,
      });
    } else {
      const src = el.getAttribute('data-src') || el.getAttribute('src') || '';
      out.push({ el, what: `iframe ${src}`, purposes, ran });
    }
  }
  return out;
}
