import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { AppError, notFound } from '../../../platform/http/errors.ts';
import { Problem } from '../../../platform/http/schemas.ts';
import type { App } from '../../../platform/http/types.ts';
import { type VendorListSite, VendorListSlice } from '../tcf.schemas.ts';
import type { TcfService } from '../tcf.service.ts';
import { vendorListLanguage } from './vendor-list-mirror.ts';
import { vendorListSlice } from './vendor-list-view.ts';

/** A version of a list and of a config never changes: with both named, the answer never does either. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Without them (or when a translation is still missing) the answer may change: a short reuse. */
const SHORT = 'public, max-age=300';

const Query = Type.Object({
  version: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2 ** 31 - 1,
      description: 'Vendor list version (default: the config’s)',
    }),
  ),
  configVersion: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2 ** 31 - 1,
      description: 'The config version whose vendors to serve (default: the current one)',
    }),
  ),
  lang: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$',
      maxLength: 35,
      description: 'Language of the declarations; English when the service holds no translation for it',
    }),
  ),
});

const headers = {
  'Cache-Control': Type.String(),
  'Content-Language': Type.String({ description: 'The language the declarations are in (`en` on fallback)' }),
  Vary: Type.String(),
};

/**
 * `GET /v1/public/sites/:siteKey/tcf/vendor-list.json`: the channel's part of the Global Vendor List,
 * the `vendorListUrl` of its config, so browsers never fetch IAB's whole list (nor from IAB). No API
 * key: rate limited per site and address like the other public reads, and readable cross-origin by
 * the site's registered origins.
 */
export function tcfVendorListRoutes(
  app: App,
  deps: {
    tcf: Pick<TcfService, 'vendorList' | 'languageFile' | 'storageDisclosures'>;
    site: VendorListSite;
  },
) {
  const { tcf, site } = deps;
  app.get(
    '/v1/public/sites/:siteKey/tcf/vendor-list.json',
    {
      config: { auth: 'public' },
      onRequest: site.onRequest,
      schema: {
        operationId: 'getSiteTcfVendorList',
        tags: site.schema.tags,
        summary:
          'The channel’s vendors of a Global Vendor List version, with the declarations they use, in IAB’s vendor-list.json format',
        description:
          'The vendors of config version `configVersion` (default: the current one) that are in vendor list `version` (default: the one that config was made with) and not deleted, and only the purposes, special purposes, features, special features, stacks and data categories they use, translated into `lang` when the service holds that translation (`Content-Language` says which). With `version` and `configVersion` both given the answer never changes and is cached for a year. 404 (with the CORS headers of a registered origin) for a channel without TCF, a config version it never had, or a vendor list version none of its config versions was made with.',
        params: site.schema.params,
        querystring: Query,
        response: {
          200: {
            description: 'The slice',
            headers,
            content: { 'application/json': { schema: VendorListSlice } },
          },
          422: Problem,
          ...site.schema.problems,
        },
      },
    },
    async (request, reply) => {
      // First, so that every answer carries them, a 404 included: the CMP API's getVendorList
      // must be able to read that a version is not there.
      (reply as FastifyReply).headers(site.corsHeaders(request));
      const { version, configVersion, lang } = request.query;
      const config = await site.config(request, configVersion);
      if (!config) throw notFound('config version');
      if (!config.tcf)
        throw new AppError('not_found', 'The channel is not a TCF CMP in that config version.');
      const wanted = version ?? config.tcf.vendorListVersion;
      // Only versions the channel's own configs were made with: any other is no visitor's, and
      // reading it would let anyone make the service load every version it keeps.
      if (wanted !== config.tcf.vendorListVersion && !(await site.usesVendorList(request, wanted)))
        throw new AppError(
          'not_found',
          'No config version of the channel was made with that vendor list version.',
        );
      const list = await tcf.vendorList(request.db.read, wanted);
      if (!list) throw new AppError('not_found', 'The service holds no such vendor list version.');
      const translation = lang ? await tcf.languageFile(request.db.read, list.vendorListVersion, lang) : null;
      const storage = await tcf.storageDisclosures(request.db.read, list.vendorListVersion);
      const slice = vendorListSlice(list.body, config.tcf.vendorIds, translation?.body ?? null, storage.held);
      // Asked for a language the service does not hold (yet): English now, the translation later.
      const fellBack = lang !== undefined && vendorListLanguage(lang) !== 'en' && !translation;
      // A vendor whose storage disclosure the worker has not asked for yet: it will be there later.
      // (One that failed is shown as unavailable: the versions of the list move on weekly.)
      const disclosuresPending = Object.values(
        slice.vendors as Record<string, { id: number; deviceStorageDisclosureUrl?: string }>,
      ).some((v) => v.deviceStorageDisclosureUrl !== undefined && !storage.tried.has(v.id));
      const fixed = version !== undefined && configVersion !== undefined && !fellBack && !disclosuresPending;
      return (reply as FastifyReply)
        .header('Cache-Control', fixed ? IMMUTABLE : SHORT)
        .header('Content-Language', translation?.language ?? 'en')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(slice));
    },
  );
}
