import type { SiteConfig } from './types.ts';

/**
 * Whether the SDK may run on this page: its origin is one the config names (`origins`: the channel's
 * registered origins, `*.` standing for one label, and on test channels `http://localhost:*` and
 * `http://127.0.0.1:*`, any port). The service refuses decisions from any other page, so a banner
 * there would collect choices that are never recorded: the SDK shows and runs nothing instead, and
 * says in the console how to register the page (docs/guides/add-the-banner.md). A config without
 * `origins` (a service from before the check) names no page, so nothing runs either.
 */
export function runsHere(base: string, config: SiteConfig, origin: string): boolean {
  if (originListed(config.origins, origin)) return true;
  console.warn(
    `[consent-service] ${origin} is not registered for this site: nothing runs. Register it: POST ${base}/v1/channels/${config.channelId}/origins ${JSON.stringify({ origin })}`,
  );
  return false;
}

/** Whether a page's origin (as `location.origin` serializes it) matches one of `origins`. */
export function originListed(origins: string[] | undefined, origin: string): boolean {
  return (origins || []).some((allowed) =>
    new RegExp(
      `^${allowed
        .replace(/[.+?^$()[\]{}|\\]/g, '\\$&')
        .replace(':*', '(:\\d+)?')
        .replace('*', '[^.:]+')}$`,
    ).test(origin),
  );
}
