import type { RegionalConfig } from './regional-config.ts';

/**
 * The statement put in front of sdk.js: the site's config for this visitor's region, where the SDK
 * finds it (sdk/src/index.ts) and starts at once, so a first-time visitor's banner needs no request
 * after sdk.js. The answer's bytes are the config's own (`{"data": …}`), so both carry the same config.
 * Keyed by site, so two sites' snippets on one page each find their own.
 */
export function configStatement(siteKey: string, config: RegionalConfig): Buffer {
  return Buffer.concat([
    Buffer.from(`${STATEMENT_START}${JSON.stringify(siteKey)}]=`),
    config.bytes,
    Buffer.from(STATEMENT_END),
  ]);
}

const STATEMENT_START = '(self.__consentServiceConfigs=self.__consentServiceConfigs||{})[';
const STATEMENT_END = '.data;\n';

/**
 * The config answer (`{"data": …}`, as `GET …/config` sends it) that an sdk.js body carries, or
 * null when it carries none: for readers of the script other than the SDK (the tracker scanner).
 */
export function carriedConfig(script: string): string | null {
  if (!script.startsWith(STATEMENT_START)) return null;
  const start = script.indexOf(']=');
  const end = script.indexOf(STATEMENT_END);
  return start > 0 && end > start ? script.slice(start + 2, end) : null;
}
