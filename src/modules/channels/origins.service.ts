import { getDomain, parse } from 'tldts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { DbScope } from '../../platform/db/store.ts';
import type { FieldError } from '../../platform/http/errors.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import { type ChannelPartsDeps, channelPartList } from './channel-changes.ts';
import type { OriginRow } from './channels.repo.ts';
import { normalizeOrigin } from './origin.ts';
import { originsRepo } from './origins.repo.ts';

/**
 * Origins are not part of what visitors are shown, so they never publish a configVersion; they
 * take the channel's lock in share mode (excluding an archive, not each other) and leave
 * duplicates to the unique index on active origins.
 */
export function createOriginsService({ store, clock, audit, changes }: ChannelPartsDeps) {
  return {
    create(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      input: { origin: string },
    ): Promise<OriginRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId, 'share');
        if (channel.platform === 'app') {
          throw validationFailed(
            [{ path: '/origin', message: 'the channel is an app channel: it has app ids, not origins' }],
            'Origins belong to web channels only: register the app ids on this channel (POST /v1/channels/:id/apps), and the WebView pages’ origins on a web channel.',
          );
        }
        const normalized = normalizeOrigin(input.origin, { environment: channel.environment });
        if (!normalized.ok) {
          throw new AppError('invalid_origin', `The origin is not valid: ${normalized.reason}.`, {
            errors: [{ path: '/origin', message: normalized.reason }],
          });
        }
        // The decision cookie's Domain must keep covering every origin (docs/guides/keep-the-choice.md).
        const uncovered = cookieDomainErrors(channel.cookieDomain, [normalized.origin], '/origin');
        if (uncovered.length > 0) throw validationFailed(uncovered);
        const origin: OriginRow = {
          organizationId: channel.organizationId,
          id: newId('ori'),
          environment: channel.environment,
          channelId: channel.id,
          origin: normalized.origin,
          status: 'active',
          createdAt: clock.now(),
          archivedAt: null,
        };
        try {
          // A savepoint, so the violation leaves the caller's transaction usable.
          await store.savepoint(tx, (sp) => originsRepo.insert(sp, origin));
        } catch (error) {
          if (isUniqueViolation(error, 'origins_channel_origin_key')) {
            throw new AppError(
              'origin_duplicate',
              `${normalized.origin} is already an active origin of the channel.`,
              {
                instance: `/v1/channels/${channel.id}/origins`,
                extra: { origin: normalized.origin },
                cause: error,
              },
            );
          }
          throw error;
        }
        await audit.record(tx, context, {
          action: 'origin.created',
          target: { type: 'origin', id: origin.id },
        });
        return origin;
      });
    },

    list: channelPartList(changes, originsRepo.list),

    archive(db: DbScope, context: AuditContext, channelId: string, originId: string): Promise<OriginRow> {
      return db.write(async (tx) => {
        const channel = await changes.lockActive(tx, context, channelId, 'share');
        const origin = await originsRepo.findForUpdate(tx, channel, originId);
        if (!origin) throw notFound('origin');
        if (origin.status !== 'active')
          throw new AppError('invalid_state', 'The origin is already archived.');
        const archived = await originsRepo.archive(tx, origin, clock.now());
        await audit.record(tx, context, {
          action: 'origin.archived',
          target: { type: 'origin', id: originId },
        });
        return archived;
      });
    },
  };
}

/** An Origin header as browsers send it: scheme://host[:port] and nothing else. */
const REQUEST_ORIGIN = /^https?:\/\/[^/?#@\\\s\p{Cc}]+$/iu;

/**
 * The origin a request's Origin header names, in canonical form (lower case, default port dropped),
 * or null when it is not exactly `http(s)://host[:port]`: a path (even "/"), query, fragment,
 * userinfo, or a space or control character anywhere makes it no origin (a browser never sends one
 * like that), so it is treated as a foreign one.
 */
export function parseRequestOrigin(header: string): string | null {
  if (!REQUEST_ORIGIN.test(header)) return null;
  try {
    const origin = new URL(header).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * Whether a browser's Origin header is allowed by one normalized allowed origin. A wildcard stands
 * for exactly one label: `https://*.example.com` matches `https://a.example.com`, but neither
 * `https://example.com` (list it separately) nor `https://a.b.example.com` (as with TLS wildcard
 * certificates). Scheme and port must match. A header that is not exactly an origin
 * (parseRequestOrigin) matches nothing.
 */
export function originMatches(allowedOrigin: string, requestOrigin: string): boolean {
  const request = parseRequestOrigin(requestOrigin);
  if (request === null) return false;
  const wildcard = /^(https?:\/\/)\*\.(.+)$/.exec(allowedOrigin);
  if (!wildcard) return request === allowedOrigin;
  const [, schemePart, domainAndPort] = wildcard;
  if (!request.startsWith(schemePart)) return false;
  const hostAndPort = request.slice(schemePart.length);
  const suffix = `.${domainAndPort}`;
  if (!hostAndPort.endsWith(suffix)) return false;
  const label = hostAndPort.slice(0, -suffix.length);
  return label.length > 0 && !label.includes('.') && !label.includes(':');
}

/**
 * The rules of a channel's `cookieDomain` (docs/guides/keep-the-choice.md) and the Public Suffix
 * List answers the public site endpoints ask (which registrable domain a host is on), here where
 * the sites and handoffs modules take them with originMatches. The list is tldts's, private section included: browsers refuse a cookie for `github.io` as
 * they do for `co.uk`, so the service must too.
 */
const PSL = { allowPrivateDomains: true } as const;

/** The host of a normalized origin (`https://*.example.com` gives `*.example.com`), without port. */
export function originHost(origin: string): string {
  const rest = origin.slice(origin.indexOf('//') + 2);
  if (rest.startsWith('[')) return rest.slice(0, rest.indexOf(']') + 1);
  const colon = rest.lastIndexOf(':');
  return colon === -1 ? rest : rest.slice(0, colon);
}

/** Whether a cookie with `Domain=domain` reaches `host` (the host itself, or any name under it). */
export function domainCovers(domain: string, host: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * Whether a registered origin (a wildcard included) lies under `domain`: `https://*.example.com`
 * is covered by `example.com`, not by `shop.example.com` (the wildcard stands for any label).
 */
export function domainCoversOrigin(domain: string, origin: string): boolean {
  const host = originHost(origin);
  return domainCovers(domain, host.startsWith('*.') ? host.slice(2) : host);
}

/**
 * The registrable domain of a host by the Public Suffix List (`www.example.co.uk` gives
 * `example.co.uk`); a host that has none (an IP address, `localhost`, a public suffix itself) is its
 * own group.
 */
export function registrableDomain(host: string): string {
  const bare = host.startsWith('*.') ? host.slice(2) : host;
  return getDomain(bare, PSL) ?? bare;
}

/**
 * What is wrong with a cookieDomain for a channel whose active origins are `origins`: a public
 * suffix (or an IP address, or a name without a registrable domain such as `localhost`), or an
 * origin it does not cover. `path` is where the errors point (`/cookieDomain` on a channel change,
 * `/origin` when an origin is added).
 */
export function cookieDomainErrors(
  domain: string | null,
  origins: readonly string[],
  path = '/cookieDomain',
): FieldError[] {
  if (domain === null) return [];
  const parsed = parse(domain, PSL);
  if (parsed.isIp)
    return [{ path, message: `${domain} is an IP address; a cookie Domain must be a domain name` }];
  if (parsed.domain === null) {
    return [
      {
        path,
        message: `${domain} is a public suffix (Public Suffix List), or has no registrable domain: browsers refuse a cookie for it; use your own domain, e.g. example.${domain}`,
      },
    ];
  }
  const uncovered = origins.filter((origin) => !domainCoversOrigin(domain, origin));
  if (uncovered.length === 0) return [];
  const shown = uncovered.slice(0, 5).join(', ');
  return [
    {
      path,
      message: `${domain} does not cover ${uncovered.length === 1 ? 'the origin' : 'the origins'} ${shown}${uncovered.length > 5 ? ', …' : ''}: the cookie Domain must cover every registered origin of the channel (set cookieDomain to null, or archive the origin)`,
    },
  ];
}
