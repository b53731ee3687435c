import { AppError, validationFailed } from '../../platform/http/errors.ts';
import { originMatches } from '../channels/origins.service.ts';
import type { RecordedEvent } from '../evidence/evidence.service.ts';
import type { Site } from '../sites/sites.service.ts';

type EvidenceRow = RecordedEvent['row'];

/**
 * The page an app opens in a WebView with `#cs_app=<token>` (docs/guides/apps.md): an active origin of
 * a web channel of the app channel's organization and environment. The token is bound to it as a
 * §25 handoff token is bound to its target origin; the page redeems it on its own channel.
 */
export function checkedWebViewTarget(app: Site, page: Site, target: string): string {
  const { channel } = page;
  const foreign =
    channel.organizationId !== app.channel.organizationId || channel.environment !== app.channel.environment;
  // One answer for a foreign channel and an unknown one: a site key says nothing of another tenant.
  if (foreign) throw new AppError('not_found', 'No such site: targetSiteKey names no channel of yours.');
  if (channel.platform !== 'web') {
    throw validationFailed([
      { path: '/targetSiteKey', message: 'must be a web channel: its pages redeem the token' },
    ]);
  }
  if (!page.origins.some((registered) => originMatches(registered, target))) {
    throw validationFailed([
      {
        path: '/target',
        message: 'must be a registered origin of the targetSiteKey’s channel, as scheme://host[:port]',
      },
    ]);
  }
  return new URL(target).origin;
}

/**
 * The app's decision as the page's channel would record it: every purpose of the page's current
 * notice decided (required ones granted), from the app decision's purpose of the same key. When
 * the app never decided an optional purpose of the page, nothing is handed: the page must ask.
 */
export function decisionForPage(page: Site, handed: EvidenceRow): EvidenceRow | null {
  const given = handed.decisions ?? {};
  const decisions: Record<string, 'granted' | 'denied'> = {};
  for (const purpose of page.config.purposes) {
    const value = purpose.required ? 'granted' : given[purpose.key];
    if (value === undefined) return null;
    decisions[purpose.key] = value;
  }
  return { ...handed, decisions, configVersion: page.config.configVersion };
}
