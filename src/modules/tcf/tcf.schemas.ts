import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiDate } from '../../platform/http/schemas.ts';
import { MAX_VENDOR_QUERY } from './vendor-list/vendor-list-view.ts';

/**
 * The Global Vendor List as the API and the public slice serve it. Entries keep IAB's field names
 * (GVL v3); the fields below are those the console and tcf.js read, and the format's other fields
 * (retention, links, `overflow` …) pass through as stored (additionalProperties). What is stored
 * holds only the format's fields: the mirror leaves out anything else a host sends
 * (vendor-list-shape.ts), so nothing unknown reaches these answers.
 */

const Ids = Type.Array(Type.Integer());
const open = { additionalProperties: true } as const;

export const GvlDeclaration = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    illustrations: Type.Optional(Type.Array(Type.String())),
    standardTexts: Type.Optional(
      Type.Unknown({ description: 'Texts the TCF policy (5.0.b) asks CMPs to show as published' }),
    ),
  },
  { ...open, description: 'A purpose, special purpose, feature, special feature or data category' },
);

/** A vendor's device storage disclosure as the worker fetched and checked it (storage-disclosure-shape.ts). */
export const StorageDisclosure = Type.Object(
  {
    disclosures: Type.Array(
      Type.Object({
        identifier: Type.String(),
        type: Type.Union([Type.Literal('cookie'), Type.Literal('web'), Type.Literal('app')]),
        maxAgeSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
          description: 'Cookies: 0 is a session cookie; null for other storage',
        }),
        cookieRefresh: Type.Optional(Type.Boolean()),
        domains: Type.Optional(Type.Array(Type.String())),
        purposes: Ids,
        specialPurposes: Type.Optional(Ids),
        description: Type.Optional(Type.String()),
      }),
    ),
    domains: Type.Array(Type.Object({ domain: Type.String(), use: Type.Optional(Type.String()) })),
  },
  {
    description:
      'Slice only: what the vendor publishes at deviceStorageDisclosureUrl, fetched and checked by the service; absent until fetched, or when the fetch failed',
  },
);

export const GvlStack = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    purposes: Ids,
    specialFeatures: Ids,
  },
  open,
);

export const GvlVendor = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    purposes: Ids,
    legIntPurposes: Ids,
    flexiblePurposes: Ids,
    specialPurposes: Ids,
    features: Ids,
    specialFeatures: Ids,
    cookieMaxAgeSeconds: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    usesCookies: Type.Optional(Type.Boolean()),
    cookieRefresh: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    usesNonCookieAccess: Type.Optional(Type.Boolean()),
    dataRetention: Type.Optional(Type.Object({}, open)),
    urls: Type.Optional(Type.Array(Type.Object({ langId: Type.String() }, open))),
    dataDeclaration: Type.Optional(Ids),
    deviceStorageDisclosureUrl: Type.Optional(Type.String()),
    deviceStorage: Type.Optional(StorageDisclosure),
  },
  open,
);

export const VendorListQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_VENDOR_QUERY,
      description: 'Only vendors whose name contains this (case-insensitive)',
    }),
  ),
});

export const VendorList = Type.Object(
  {
    vendorListVersion: Type.Integer(),
    tcfPolicyVersion: Type.Integer(),
    lastUpdated: ApiDate,
    purposes: Type.Array(GvlDeclaration),
    specialPurposes: Type.Array(GvlDeclaration),
    features: Type.Array(GvlDeclaration),
    specialFeatures: Type.Array(GvlDeclaration),
    stacks: Type.Array(GvlStack),
    dataCategories: Type.Array(GvlDeclaration),
    vendors: Type.Array(GvlVendor, { description: 'Deleted vendors are left out' }),
    fetch: Type.Object(
      {
        lastSuccessAt: Type.Union([ApiDate, Type.Null()]),
        lastAttemptAt: Type.Union([ApiDate, Type.Null()]),
        consecutiveFailures: Type.Integer({
          minimum: 0,
          description: 'Fetches failed since the last success: 0 when the last one worked',
        }),
      },
      {
        description:
          'How the worker’s fetches from TCF_GVL_URL go: while they fail, this list (the last good one) is what visitors are shown, and it goes out of date. The errors are in the worker’s log',
      },
    ),
  },
  { $id: 'VendorList' },
);

const IdMap = <T extends Parameters<typeof Type.Record>[1]>(entry: T) =>
  Type.Record(Type.String({ pattern: '^[0-9]+$' }), entry);

/** One channel's part of a list, in IAB's `vendor-list.json` format (maps keyed by id). */
export const VendorListSlice = Type.Object(
  {
    gvlSpecificationVersion: Type.Literal(3),
    vendorListVersion: Type.Integer(),
    tcfPolicyVersion: Type.Integer(),
    lastUpdated: Type.String(),
    purposes: IdMap(GvlDeclaration),
    specialPurposes: IdMap(GvlDeclaration),
    features: IdMap(GvlDeclaration),
    specialFeatures: IdMap(GvlDeclaration),
    stacks: IdMap(GvlStack),
    dataCategories: IdMap(GvlDeclaration),
    standardTexts: Type.Optional(
      Type.Unknown({
        description: 'The list’s standard texts (TCF v2.4), in the slice’s language when translated',
      }),
    ),
    vendors: IdMap(GvlVendor),
  },
  { $id: 'VendorListSlice' },
);

/**
 * What the vendor-list route (vendor-list/tcf-vendor-list.routes.ts) asks of the public site
 * endpoints (the sites module's, wired in app.ts: sites and channels depend on this module, so it
 * is given them, never imports them). A contract the sites module implements (site-tcf.ts), so it
 * is public here rather than passed on by tcf.service.ts from the route file.
 */
export interface VendorListSite {
  /** The public site routes' hooks: rate limit per site and address, then resolve the site (404). */
  onRequest: onRequestHookHandler[];
  /** The public site routes' `:siteKey` parameter, tags and shared problems, for the document. */
  schema: { params: TSchema; tags: string[]; problems: Record<number, object> };
  /** The CORS headers of the request's Origin for its site (none for an unregistered one). */
  corsHeaders(request: FastifyRequest): Record<string, string>;
  /** The TCF part of the site's config version (its current one when undefined); null: no such version. */
  config(
    request: FastifyRequest,
    configVersion: number | undefined,
  ): Promise<{ tcf: { vendorListVersion: number; vendorIds: number[] } | null } | null>;
  /** Whether any config version of the site's channel was made with that vendor list version. */
  usesVendorList(request: FastifyRequest, vendorListVersion: number): Promise<boolean>;
}
