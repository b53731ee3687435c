import type { Clock } from '../../platform/clock.ts';
import { watchChanges } from '../../platform/db/change-watch.ts';
import type { Store } from '../../platform/db/store.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import { CHANNEL_CHANGES } from '../channels/channels.service.ts';
import type { RegionalAnswerCache } from './regional-answers.ts';
import { publicTcf } from './regional-config.ts';
import type { Site } from './sites.service.ts';

/** How long an entry is trusted while change notifications cannot be relied on. */
export const SITE_CACHE_TTL_MS = 5_000;
/** While they can: a change drops the entry at once; this re-check only bounds a missed notification. */
export const SITE_CACHE_NOTIFIED_TTL_MS = 60_000;
const MAX_SITES = 10_000;

/**
 * An in-process cache of sites by siteKey, for the hot public endpoints.
 *
 * Every change to a channel or its parts notifies CHANNEL_CHANGES when it commits (this process at
 * once, other replicas through PostgreSQL NOTIFY), and the cache then drops everything it holds:
 * the next request re-reads the channel row and its origins (two indexed lookups) and reloads the
 * config snapshot only if configVersion moved (snapshots are immutable per version). So an archive,
 * a new origin or a new config is served from the next request on. While the notification
 * connection is down, an entry is trusted for SITE_CACHE_TTL_MS only (on the app's clock, so tests
 * move it). A load that began before a change is not cached. Concurrent misses for one site share
 * one load; unknown site keys are not cached, and the map holds at most MAX_SITES entries.
 */
export interface SiteCacheDeps {
  channels: Pick<
    ChannelsService,
    'findActiveChannelBySiteKey' | 'activeOrigins' | 'activeApps' | 'currentNotice'
  >;
  clock: Clock;
  listen: Store['listen'];
  /** BASE_URL: the config's links (the TCF vendor list) are absolute. */
  baseUrl: string;
  /** Where every site's config answers are kept (CONFIG_CACHE_MB). */
  answers: RegionalAnswerCache;
  ttlMs?: number;
}

export function createSiteCache(deps: SiteCacheDeps) {
  const { channels, clock } = deps;
  const sites = new Map<string, Site>();
  const loading = new Map<string, Promise<Site | null>>();
  const changes = watchChanges(deps.listen, CHANNEL_CHANGES, () => sites.clear());
  const ttlMs = () => (changes.listening() ? SITE_CACHE_NOTIFIED_TTL_MS : (deps.ttlMs ?? SITE_CACHE_TTL_MS));

  async function load(siteKey: string, previous: Site | undefined): Promise<Site | null> {
    const startedIn = changes.generation();
    const channel = await channels.findActiveChannelBySiteKey(siteKey);
    if (!channel) {
      sites.delete(siteKey);
      return null;
    }
    const origins = await channels.activeOrigins(channel);
    const apps = await channels.activeApps(channel);
    let site: Site;
    if (
      previous &&
      previous.channel.id === channel.id &&
      previous.config.configVersion === channel.configVersion
    ) {
      // The answers name the origins (the config's `origins`): other origins, other answers.
      const regional = sameList(previous.origins, origins) ? previous.regional : deps.answers.forSite();
      site = { ...previous, channel, origins, apps, regional, checkedAtMs: clock.now().getTime() };
    } else {
      const notice = await channels.currentNotice(channel);
      if (!notice)
        throw new Error(`channel ${channel.id} has no snapshot of configVersion ${channel.configVersion}`);
      site = {
        channel,
        origins,
        apps,
        config: notice.config,
        consentRequiredSince: notice.consentRequiredSince,
        tcf: publicTcf(notice.config, deps.baseUrl),
        regional: deps.answers.forSite(),
        checkedAtMs: clock.now().getTime(),
      };
    }
    if (startedIn !== changes.generation()) return site;
    sites.delete(siteKey);
    if (sites.size >= MAX_SITES) sites.delete(sites.keys().next().value as string);
    sites.set(siteKey, site);
    return site;
  }

  function refresh(siteKey: string): Promise<Site | null> {
    const pending = loading.get(siteKey);
    if (pending) return pending;
    const promise = load(siteKey, sites.get(siteKey)).finally(() => loading.delete(siteKey));
    loading.set(siteKey, promise);
    return promise;
  }

  /** The cached site, while it is still trusted (younger than the TTL); else undefined. */
  function fresh(siteKey: string): Site | undefined {
    const cached = sites.get(siteKey);
    return cached && clock.now().getTime() - cached.checkedAtMs < ttlMs() ? cached : undefined;
  }

  return {
    /** The active site of a key, or null (unknown or archived). */
    get(siteKey: string): Promise<Site | null> {
      const cached = fresh(siteKey);
      return cached ? Promise.resolve(cached) : refresh(siteKey);
    },

    /** The site without waiting, when the cache can answer on its own (the hot path); else undefined. */
    fresh,

    /** Re-reads the site now, whatever its age: when a request names a configVersion newer than the cache's. */
    refresh,

    /** Stops listening for changes (the app is closing). */
    close: changes.stop,
  };
}

export type SiteCache = ReturnType<typeof createSiteCache>;

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);
