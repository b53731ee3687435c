/**
 * A small IAB Global Vendor List in the GVL v3 format, made by the tests (IAB's list cannot be
 * fetched here), and a loopback server that publishes it the way IAB does: `vendor-list.json` and
 * `purposes-<lang>.json` under one base URL, with `Cache-Control: max-age`. Tests change what it
 * serves (a new version, a failure) to drive the service's vendor list mirror.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

type IntMap<T> = Record<string, T>;

const PURPOSE_NAMES = [
  'Store and/or access information on a device',
  'Use limited data to select advertising',
  'Create profiles for personalised advertising',
  'Use profiles to select personalised advertising',
  'Create profiles to personalise content',
  'Use profiles to select personalised content',
  'Measure advertising performance',
  'Measure content performance',
  'Understand audiences through statistics or combinations of data from different sources',
  'Develop and improve services',
  'Use limited data to select content',
];
const SPECIAL_PURPOSE_NAMES = [
  'Ensure security, prevent and detect fraud, and fix errors',
  'Deliver and present advertising and content',
  'Save and communicate privacy choices',
];
const FEATURE_NAMES = [
  'Match and combine data from other data sources',
  'Link different devices',
  'Identify devices based on information transmitted automatically',
];
const SPECIAL_FEATURE_NAMES = [
  'Use precise geolocation data',
  'Actively scan device characteristics for identification',
];
const DATA_CATEGORY_NAMES = [
  'IP addresses',
  'Device characteristics',
  'Device identifiers',
  'Probabilistic identifiers',
  'Authentication-derived identifiers',
  'Browsing and interaction data',
  'User-provided data',
  'Non-precise location data',
  'Precise location data',
  'Users’ profiles',
  'Privacy choices',
];

/** A vendor as the tests declare it; everything else a GVL v3 vendor has gets a plain default. */
export interface TestVendor {
  id: number;
  name: string;
  purposes?: number[];
  legIntPurposes?: number[];
  flexiblePurposes?: number[];
  specialPurposes?: number[];
  features?: number[];
  specialFeatures?: number[];
  dataDeclaration?: number[];
  /** ISO date: the vendor left the list (it stays in it, marked deleted, as in IAB's list). */
  deletedDate?: string;
}

/** Five vendors covering consent, legitimate interest, flexible purposes and special features. */
export const TEST_VENDORS: TestVendor[] = [
  {
    id: 1,
    name: 'Exponential Interactive, Inc d/b/a VDX.tv',
    purposes: [1, 2, 3, 4],
    legIntPurposes: [7, 10],
    specialPurposes: [1, 2],
    features: [3],
    dataDeclaration: [1, 3, 6],
  },
  {
    id: 2,
    name: 'Captify Technologies Limited',
    purposes: [1, 2],
    legIntPurposes: [7, 8, 9],
    flexiblePurposes: [7],
    specialPurposes: [1],
    features: [1, 2],
    specialFeatures: [1],
    dataDeclaration: [1, 2, 8],
  },
  {
    id: 8,
    name: 'Emerse Sverige AB',
    purposes: [1, 3, 4],
    legIntPurposes: [2, 7, 9, 10],
    specialPurposes: [1, 2, 3],
    features: [1, 3],
    specialFeatures: [2],
    dataDeclaration: [2, 4],
  },
  {
    id: 21,
    name: 'The Trade Desk',
    purposes: [1, 3, 4, 5, 6],
    legIntPurposes: [2, 7, 8, 9, 10, 11],
    specialPurposes: [1, 2],
    features: [1, 2, 3],
    specialFeatures: [1],
    dataDeclaration: [1, 2, 3, 4, 5, 6],
  },
  {
    id: 32,
    name: 'Xandr, Inc.',
    purposes: [1, 2, 3, 4, 7],
    legIntPurposes: [9, 10],
    specialPurposes: [1, 2],
    features: [1, 2],
    dataDeclaration: [1, 3],
  },
];

const named = (names: string[], extra: (id: number) => object = () => ({})) =>
  Object.fromEntries(
    names.map((name, i) => [
      String(i + 1),
      { id: i + 1, name, description: `${name}: what it means.`, illustrations: [], ...extra(i + 1) },
    ]),
  );

/** The declarations (purposes … data categories), in English, or with a language's prefix. */
function declarations(prefix = '') {
  const t = (names: string[]) => names.map((n) => `${prefix}${n}`);
  return {
    purposes: named(t(PURPOSE_NAMES)),
    specialPurposes: named(t(SPECIAL_PURPOSE_NAMES)),
    features: named(t(FEATURE_NAMES)),
    specialFeatures: named(t(SPECIAL_FEATURE_NAMES)),
    stacks: {
      '1': {
        id: 1,
        name: `${prefix}Precise geolocation data, and identification through device scanning`,
        description: 'Special features 1 and 2.',
        purposes: [],
        specialFeatures: [1, 2],
      },
      '2': {
        id: 2,
        name: `${prefix}Advertising and its measurement`,
        description: 'Purposes 2 and 7.',
        purposes: [2, 7],
        specialFeatures: [],
      },
      '3': {
        id: 3,
        name: `${prefix}Personalised advertising`,
        description: 'Purposes 2, 3 and 4.',
        purposes: [2, 3, 4],
        specialFeatures: [],
      },
    },
    dataCategories: Object.fromEntries(
      t(DATA_CATEGORY_NAMES).map((name, i) => [String(i + 1), { id: i + 1, name, description: `${name}.` }]),
    ),
  };
}

/**
 * Where the tests' vendors publish their storage disclosures unless a test serves them
 * (withDisclosuresAt): a loopback port nothing listens on, so a fetch fails at once, without DNS.
 */
const NO_DISCLOSURE_HOST = 'http://127.0.0.1:9/';

/** `list` with every vendor's deviceStorageDisclosureUrl on `base` (a serveVendorList url). */
export function withDisclosuresAt<T extends ReturnType<typeof buildVendorList>>(list: T, base: string): T {
  for (const vendor of Object.values(list.vendors))
    vendor.deviceStorageDisclosureUrl = `${base}disclosures/${vendor.id}.json`;
  return list;
}

/**
 * A vendor's device storage disclosure (IAB's JSON format), as the tests' vendors publish it: a
 * cookie of a year that is refreshed, a session cookie, and a localStorage key.
 */
export function buildStorageDisclosure(vendorId: number) {
  return {
    disclosures: [
      {
        identifier: `uid_${vendorId}`,
        type: 'cookie',
        maxAgeSeconds: 31_536_000,
        cookieRefresh: true,
        domains: [`*.vendor${vendorId}.example`],
        purposes: [1, 2],
      },
      {
        identifier: `sess_${vendorId}`,
        type: 'cookie',
        maxAgeSeconds: 0,
        cookieRefresh: false,
        domains: [`vendor${vendorId}.example`],
        purposes: [1],
      },
      { identifier: `ls_${vendorId}`, type: 'web', maxAgeSeconds: null, domains: ['*'], purposes: [1, 7] },
    ],
    domains: [{ domain: `vendor${vendorId}.example`, use: 'Ad serving' }],
  };
}

function gvlVendor(v: TestVendor) {
  const slug = v.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return {
    id: v.id,
    name: v.name,
    purposes: v.purposes ?? [1],
    legIntPurposes: v.legIntPurposes ?? [],
    flexiblePurposes: v.flexiblePurposes ?? [],
    specialPurposes: v.specialPurposes ?? [],
    features: v.features ?? [],
    specialFeatures: v.specialFeatures ?? [],
    cookieMaxAgeSeconds: 31536000,
    usesCookies: true,
    cookieRefresh: false,
    usesNonCookieAccess: false,
    dataRetention: { stdRetention: 365, purposes: {}, specialPurposes: {} },
    urls: [
      {
        langId: 'en',
        privacy: `https://${slug}.example/privacy`,
        legIntClaim: `https://${slug}.example/legint`,
      },
    ],
    dataDeclaration: v.dataDeclaration ?? [],
    deviceStorageDisclosureUrl: `${NO_DISCLOSURE_HOST}disclosures/${v.id}.json`,
    ...(v.deletedDate && { deletedDate: v.deletedDate }),
  };
}

/** `vendor-list.json` of one version, in the GVL v3 format. */
export function buildVendorList(
  options: { version?: number; vendors?: TestVendor[]; tcfPolicyVersion?: number; lastUpdated?: string } = {},
) {
  const version = options.version ?? 100;
  const vendors: IntMap<ReturnType<typeof gvlVendor>> = {};
  for (const v of options.vendors ?? TEST_VENDORS) vendors[String(v.id)] = gvlVendor(v);
  return {
    gvlSpecificationVersion: 3,
    vendorListVersion: version,
    // TCF 2.3 strings carry policy version 5 (the DisclosedVendors segment is the 2.3 change).
    tcfPolicyVersion: options.tcfPolicyVersion ?? 5,
    lastUpdated: options.lastUpdated ?? new Date(Date.UTC(2026, 0, 1) + version * 86_400_000).toISOString(),
    ...declarations(),
    vendors,
  };
}

/**
 * `purposes-<lang>.json`: the declarations translated. The tests' "translation" prefixes each name
 * with `[lang] `, so a test can see which language file a layer was drawn from.
 */
export function buildLanguageFile(language: string, options: { version?: number } = {}) {
  return {
    gvlSpecificationVersion: 3,
    vendorListVersion: options.version ?? 100,
    tcfPolicyVersion: 5,
    lastUpdated: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    ...declarations(`[${language}] `),
  };
}

export type FailureMode = number | 'garbage' | 'hang' | 'stall' | 'huge' | 'html';

export interface VendorListServer {
  /** The base URL to give as TCF_GVL_URL (ends with '/'). */
  url: string;
  /** Every path requested, in order. */
  requests: string[];
  /** Publishes another vendor list (the next version, say). */
  publish(list: ReturnType<typeof buildVendorList>): void;
  /**
   * Publishes `vendor-list.json` as these exact bytes (JSON.stringify cannot write what a hostile
   * host can: 20,000 levels of nesting, say); publish() goes back to a list.
   */
  publishText(text: string): void;
  /** What vendor `vendorId`'s deviceStorageDisclosureUrl answers from now on (any JSON). */
  disclose(vendorId: number, body: unknown): void;
  /**
   * Answers `vendor-list.json` with a 302 to `location` (absolute, or a path on this server) until
   * heal(); a path under `/moved/` is then served as the file of the same name.
   */
  redirect(location: string): void;
  /**
   * Answers every request with this status until heal(); 'garbage' sends invalid JSON; 'hang' never
   * answers; 'stall' sends the headers and part of the body, then nothing; 'huge' streams more than
   * 16 MiB; 'html' sends a 200 page that is not JSON.
   */
  fail(mode: FailureMode): void;
  heal(): void;
  /** The max-age the server sends in Cache-Control. */
  maxAgeSeconds: number;
  close(): Promise<void>;
}

/** Serves `list` (and any language file asked for) on 127.0.0.1, like IAB's vendor-list host. */
export async function serveVendorList(
  list: ReturnType<typeof buildVendorList> = buildVendorList(),
  options: { maxAgeSeconds?: number } = {},
): Promise<VendorListServer> {
  let current = list;
  let currentText: string | null = null;
  let redirectTo: string | null = null;
  let failure: FailureMode | null = null;
  const requests: string[] = [];
  const state = { maxAgeSeconds: options.maxAgeSeconds ?? 600 };
  /** What a vendor's disclosure URL answers, when a test set it (else buildStorageDisclosure). */
  const disclosures = new Map<number, unknown>();
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    requests.push(pathname);
    if (failure === 'hang') return;
    if (failure === 'stall') {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"gvlSpecificationVersion": 3,');
      return;
    }
    if (failure === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 17 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('{}');
      };
      res.on('error', () => {});
      pump();
      return;
    }
    if (failure === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Captive portal</html>');
      return;
    }
    if (failure === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"vendorListVersion": ');
      return;
    }
    if (failure !== null) {
      res.writeHead(failure, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    if (redirectTo !== null && pathname === '/vendor-list.json') {
      res.writeHead(302, { location: redirectTo }).end();
      return;
    }
    const file = pathname.replace(/^\/moved\//, '/');
    if (file === '/vendor-list.json' && currentText !== null) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(currentText);
      return;
    }
    const disclosed = /^\/disclosures\/(\d+)\.json$/.exec(pathname)?.[1];
    if (disclosed) {
      const body = disclosures.get(Number(disclosed)) ?? buildStorageDisclosure(Number(disclosed));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const language = /^\/purposes-([a-z]{2})\.json$/.exec(pathname)?.[1];
    const body =
      file === '/vendor-list.json'
        ? current
        : language
          ? buildLanguageFile(language, { version: current.vendorListVersion })
          : null;
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'cache-control': `max-age=${state.maxAgeSeconds}`,
      })
      .end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    publish(next) {
      current = next;
      currentText = null;
    },
    disclose(vendorId, body) {
      disclosures.set(vendorId, body);
    },
    publishText(text) {
      currentText = text;
    },
    redirect(location) {
      redirectTo = location;
    },
    fail(mode) {
      failure = mode;
    },
    heal() {
      failure = null;
      redirectTo = null;
    },
    get maxAgeSeconds() {
      return state.maxAgeSeconds;
    },
    set maxAgeSeconds(value: number) {
      state.maxAgeSeconds = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes the list and the language files into `dir`, for a `file:` TCF_GVL_URL (air-gapped installs). */
export function writeVendorListDir(
  dir: string,
  list: ReturnType<typeof buildVendorList> = buildVendorList(),
  languages: string[] = ['en'],
): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'vendor-list.json'), JSON.stringify(list));
  for (const language of languages) {
    fs.writeFileSync(
      path.join(dir, `purposes-${language}.json`),
      JSON.stringify(buildLanguageFile(language, { version: list.vendorListVersion })),
    );
  }
  return dir;
}
