import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { type BundleEncoding, negotiate } from '../../platform/http/bundle-encodings.ts';
import { notModified } from '../../platform/http/conditional.ts';
import { AppError } from '../../platform/http/errors.ts';
import { Envelope, envelope, NotModified, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { configResponse, regionalCacheControl } from './config-response.ts';
import { COOKIE_CACHE_CONTROL } from './decision-cookie.ts';
import { locationOf, publicProblems, siteOf, tags } from './public-site.service.ts';
import { pieceBundle, type SdkBundle, type SdkPiece } from './sdk-bundle.ts';
import { RegionQuery, SiteConfigSchema, SiteParams, Snippet } from './sites.schemas.ts';
import { requestPlace, type Site, type SitesService } from './sites.service.ts';

/** The SDK's lazily loaded pieces (sdk/src/bundle-urls.ts): what each is and when the SDK loads it. */
const PIECE_ROUTES: Array<[SdkPiece, string, string]> = [
  [
    'gpp',
    'getGppBundle',
    'The IAB GPP CMP API (application/javascript), which the SDK loads for visitors of US opt-out regions when the channel has a gppCmpId',
  ],
  [
    'tcf',
    'getTcfBundle',
    'The IAB TCF CMP API and its two layers (application/javascript), which the SDK loads for visitors of opt-in regions when the channel has tcf',
  ],
  [
    'notice',
    'getNoticeBundle',
    'The notice and the "Your Privacy Choices" button (application/javascript), which the SDK loads for visitors of notice-only and opt-out regions',
  ],
  [
    'handoff',
    'getHandoffBundle',
    'The handoff of a choice to the channel’s sibling domains (application/javascript), which the SDK loads on channels with crossDomain and origins on several registrable domains',
  ],
  [
    'import',
    'getImportBundle',
    'The reader of another CMP’s cookie (application/javascript), which the SDK loads on channels with imports, for a visitor with no decision and such a cookie',
  ],
  [
    'identity',
    'getIdentityBundle',
    'The sign-in of a visitor with an identity token (application/javascript), which the SDK loads for signed-in visitors (docs/guides/signed-in-visitors.md)',
  ],
  [
    'debug',
    'getDebugBundle',
    'The developer panel (application/javascript), which the SDK loads on test channels when the page’s URL has #cs_debug or the page calls ConsentService.debug() (docs/guides/developer-panel.md); 404 for a live channel’s site key',
  ],
];

/**
 * The developer panel shows a visitor's stored choice and lets the page override their region: a
 * tool for building a site, never for its visitors, so a live channel's site key is refused it.
 */
function debugOnTestOnly(site: Site): void {
  if (site.channel.environment !== 'test')
    throw new AppError(
      'not_found',
      'The developer panel (debug.js) exists on test channels only, and this site key is a live channel’s: open the page with the test channel’s site key (site_test_…) and #cs_debug in its URL.',
    );
}
const STATIC_CACHE_CONTROL = 'public, max-age=300';
/** A bundle asked for by its version (`?v=`, its content hash): that URL never names other bytes. */
const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const BundleQuery = Type.Object({
  v: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'The version the SDK names (its content hash): when it is the bundle served, the answer may be kept for a year',
    }),
  ),
});
const cacheHeaders = {
  'Cache-Control': Type.String(),
  ETag: Type.String({ description: 'Send it back as If-None-Match to get a 304 when unchanged' }),
};
/** A bundle is sent brotli- or gzip-compressed when the request accepts it. */
const bundleHeaders = {
  ...cacheHeaders,
  Vary: Type.String({ description: 'Accept-Encoding' }),
  'Content-Encoding': Type.Optional(
    Type.String({ description: 'br or gzip, as Accept-Encoding allows; absent: sent as it is' }),
  ),
};
/**
 * Through the channel's first-party path, a config or sdk.js read refreshes a valid decision cookie
 * the request carries (never creates one); such an answer is private (docs/guides/keep-the-choice.md).
 */
const refreshHeader = {
  'Set-Cookie': Type.Optional(
    Type.String({
      description:
        'Through the first-party path, when the request carries a valid decision cookie: the same cookie again, its lifetime (consentMaxAgeDays) started anew; the answer is then `Cache-Control: private, no-store`',
    }),
  ),
};
/** sdk.js carries the visitor's config, so it is cached as the config is (per region). */
const sdkHeaders = {
  ...bundleHeaders,
  ...refreshHeader,
  Vary: Type.String({
    description: 'Accept-Encoding, and the trusted geo headers when GEO_COUNTRY_HEADER is set',
  }),
};
const configCacheHeaders = {
  ...cacheHeaders,
  ...refreshHeader,
  Vary: Type.String({ description: 'Origin, and the trusted geo headers when GEO_COUNTRY_HEADER is set' }),
};

const SCRIPT_TYPE = 'application/javascript; charset=utf-8';

/**
 * One representation of a script (as it is, or in the encoding the request accepts) with its own
 * ETag: a 304 when the request already holds it (or no body: the caller found so), else the body
 * and its Content-Encoding.
 */
function sendScript(
  request: FastifyRequest,
  reply: FastifyReply,
  script: { body: string | Buffer | null; etag: string },
  encoding: BundleEncoding | null,
) {
  reply.header('ETag', script.etag);
  if (script.body === null || notModified(request.headers['if-none-match'], script.etag))
    return reply.code(304).send();
  if (encoding) reply.header('Content-Encoding', encoding);
  return reply.type(SCRIPT_TYPE).send(script.body);
}

/**
 * A bundle compressed as the request accepts (bundle-encodings.ts), or as it is. Kept a year when
 * asked for by its own version; any other version (an SDK of an older build) or none gets the
 * current bundle for minutes only, so a stale name never pins it.
 */
function sendBundle(request: FastifyRequest, reply: FastifyReply, bundle: SdkBundle) {
  const { v } = request.query as { v?: string };
  reply.header('Cache-Control', v === bundle.version ? IMMUTABLE_CACHE_CONTROL : STATIC_CACHE_CONTROL);
  reply.header('Vary', 'Accept-Encoding');
  const encoding = negotiate(request.headers['accept-encoding']);
  const script = encoding ? bundle.encoded[encoding] : { body: bundle.source, etag: bundle.etag };
  return sendScript(request, reply, script, encoding);
}

interface SiteAssetsDeps {
  sites: Pick<SitesService, 'snippet' | 'regionOf' | 'caching' | 'sdkScript' | 'decisionCookieRefresh'>;
  publicHooks: onRequestHookHandler[];
}

/**
 * What a customer's pages load: the snippet, the config its banner shows, and the SDK bundles.
 * Cacheable reads; `publicHooks` rate limit them and resolve their site first.
 */
export function siteAssetsRoutes(app: App, deps: SiteAssetsDeps) {
  registerSiteConfigRoutes(app, deps);
  registerSdkScriptRoutes(app, deps);
}

/** The refresh of the visitor's decision cookie through the first-party path (decision-cookie.ts), or null. */
const cookieRefresh = (sites: SiteAssetsDeps['sites'], site: Site, request: FastifyRequest) =>
  site.channel.firstPartyPath !== null && request.headers.cookie
    ? sites.decisionCookieRefresh(site, requestPlace(request), request.headers.cookie)
    : null;

/** The snippet and the config its banner shows: JSON answers. */
function registerSiteConfigRoutes(app: App, deps: SiteAssetsDeps) {
  const { sites, publicHooks } = deps;

  app.get(
    '/v1/public/sites/:siteKey/snippet',
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId: 'getSiteSnippet',
        tags,
        summary: 'The HTML that loads the SDK for this site',
        params: SiteParams,
        response: {
          ...publicProblems,
          200: {
            description: 'The snippet',
            headers: { 'Cache-Control': Type.String() },
            content: { 'application/json': { schema: Envelope(Snippet) } },
          },
        },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', STATIC_CACHE_CONTROL);
      return envelope(sites.snippet(siteOf(request)));
    },
  );

  app.get(
    '/v1/public/sites/:siteKey/config',
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId: 'getSiteConfig',
        tags,
        summary:
          "What the banner shows: the current configVersion's snapshot, resolved for the visitor's region (ETag, cacheable per region)",
        params: SiteParams,
        querystring: RegionQuery,
        response: {
          ...publicProblems,
          200: {
            description: 'The config of the current version for the visitor’s region',
            headers: configCacheHeaders,
            content: { 'application/json': { schema: Envelope(SiteConfigSchema) } },
          },
          304: { ...NotModified, headers: configCacheHeaders },
          422: Problem,
        },
      },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const { statusCode, headers, body } = configResponse(
        site,
        {
          origin: request.headers.origin,
          ifNoneMatch: request.headers['if-none-match'],
          region: sites.regionOf(site, locationOf(request)),
          setCookie: cookieRefresh(sites, site, request),
        },
        sites.caching,
      );
      // The body is already serialized bytes: sent as they are, past the response schema.
      return (reply as FastifyReply)
        .code(statusCode)
        .headers(headers)
        .send(body ?? undefined);
    },
  );
}

/** The scripts: sdk.js (the SDK with the visitor's config) and the pieces it loads lazily. */
function registerSdkScriptRoutes(app: App, deps: SiteAssetsDeps) {
  const { sites, publicHooks } = deps;

  /** A bundle of the browser SDK at `…/<file>`: the same site lookup, caching and ETag for each. */
  function bundleRoute(
    file: string,
    operationId: string,
    summary: string,
    what: string,
    bundle: () => SdkBundle,
    check?: (site: Site) => void,
  ) {
    app.get(
      `/v1/public/sites/:siteKey/${file}`,
      {
        config: { auth: 'public' },
        onRequest: publicHooks,
        schema: {
          operationId,
          tags,
          summary,
          params: SiteParams,
          querystring: BundleQuery,
          response: {
            ...publicProblems,
            200: {
              description: what,
              headers: bundleHeaders,
              content: { 'application/javascript': { schema: Type.String() } },
            },
            304: { ...NotModified, headers: { ...cacheHeaders, Vary: bundleHeaders.Vary } },
          },
        },
      },
      async (request, reply) => {
        check?.(siteOf(request));
        return sendBundle(request, reply, bundle());
      },
    );
  }

  app.get(
    '/v1/public/sites/:siteKey/sdk.js',
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId: 'getSiteSdk',
        tags,
        summary:
          "The browser SDK (application/javascript), with the site's config for the visitor's region in front of it: the banner needs no further request",
        params: SiteParams,
        response: {
          ...publicProblems,
          200: {
            description: 'The SDK and the config',
            headers: sdkHeaders,
            content: { 'application/javascript': { schema: Type.String() } },
          },
          304: { ...NotModified, headers: { ...cacheHeaders, ...refreshHeader, Vary: sdkHeaders.Vary } },
        },
      },
    },
    async (request, reply) => {
      const site = siteOf(request);
      // No declared region here: on test channels the SDK asks `…/config?region=` itself.
      const region = sites.regionOf(site, { declared: undefined, headers: request.headers, ip: request.ip });
      const encoding = negotiate(request.headers['accept-encoding']);
      const script = await sites.sdkScript(
        site,
        region,
        encoding ?? 'identity',
        request.headers['if-none-match'],
      );
      // sdk.js carries the config: through the first-party path it refreshes the decision cookie too.
      const setCookie = cookieRefresh(sites, site, request);
      if (setCookie) reply.header('Set-Cookie', setCookie);
      reply.header(
        'Cache-Control',
        setCookie ? COOKIE_CACHE_CONTROL : regionalCacheControl(sites.caching, region),
      );
      reply.header('Vary', ['Accept-Encoding', ...sites.caching.geoHeaders].join(', '));
      return sendScript(request, reply as FastifyReply, script, encoding);
    },
  );
  for (const [piece, operationId, summary] of PIECE_ROUTES) {
    bundleRoute(
      `${piece}.js`,
      operationId,
      summary,
      `The ${piece}.js bundle`,
      () => pieceBundle(piece),
      piece === 'debug' ? debugOnTestOnly : undefined,
    );
  }
}
