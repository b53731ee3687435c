import type { SiteConfig } from './types.ts';

/**
 * GET `…/config` (when the page did not bring it): retried on network errors, 429 and 5xx with
 * backoff (1, 2, 4 s), given up on other answers.
 */
export async function fetchConfig(url: string): Promise<SiteConfig> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, { credentials: 'same-origin' });
      if (res.ok) return (await res.json()).data;
      if (res.status < 500 && res.status !== 429) throw new Error(`HTTP ${res.status}`);
    } catch (error) {
      if (attempt >= 3 || (error instanceof Error && error.message.startsWith('HTTP'))) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** attempt));
  }
}
