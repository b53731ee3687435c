const SDK_PATH = /^(.*)\/v1\/public\/sites\/([^/]+)\/sdk\.js$/;

/**
 * Where the SDK came from: the service's base URL (the only host it ever talks to) and the site key,
 * both from its own script element (`data-site-key` wins over the key in the path).
 */
export function locateSelf(): {
  base: string;
  siteKey: string;
  region: string | null;
  identityToken: string | null;
} | null {
  const current = document.currentScript as HTMLScriptElement | null;
  const candidates = current ? [current] : Array.from(document.querySelectorAll('script[src]'));
  for (const el of candidates as HTMLScriptElement[]) {
    let url: URL;
    try {
      url = new URL(el.src, location.href);
    } catch {
      continue;
    }
    const match = SDK_PATH.exec(url.pathname);
    if (!match) continue;
    return {
      base: url.origin + match[1],
      siteKey: el.getAttribute('data-site-key') || decodeURIComponent(match[2]),
      region: el.getAttribute('data-region'),
      identityToken: el.getAttribute('data-identity-token'),
    };
  }
  return null;
}
