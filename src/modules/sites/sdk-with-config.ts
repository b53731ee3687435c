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

export const STATEMENT_START = '(self.__consentServiceConfigs=self.__consentServiceConfigs||{})[';
export const STATEMENT_END = '.data;\n';
