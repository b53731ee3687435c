import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { isNecessaryCategory } from '../../shared/scans-matching.ts';

/**
 * Classification of cookies, storage keys and request hosts found by a tracker scan, from the
 * vendored Open Cookie Database (data/open-cookie-database, Apache-2.0). Offline: the CSV is read
 * from disk once, on first use, and never fetched.
 */

export interface CookieClassification {
  /** The CSV's Category column: Functional, Analytics, Marketing, Security, Necessary, Personalization. */
  category: string;
  /** The CSV's Platform column (Google Analytics, Facebook, …). */
  vendor: string;
}

/** The header columns this module reads; a CSV without any of them is refused. */
export const COOKIE_DATABASE_COLUMNS = {
  name: 'Cookie / Data Key name',
  category: 'Category',
  vendor: 'Platform',
  domain: 'Domain',
  wildcard: 'Wildcard match',
} as const;

export interface CookieDatabase {
  classifyCookie(name: string): CookieClassification | null;
  classifyHost(host: string): CookieClassification | null;
  /** Counts, for the refresh script and tests. */
  readonly size: { rows: number; names: number; prefixes: number; domains: number };
}

/** Strictly necessary categories: such an item needs no consent, even undeclared. */
// Ties between categories under one domain go to the first of these, then to the CSV's order.
const TIE_ORDER = ['Marketing', 'Analytics', 'Personalization'];

const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * The domains a Domain field names. The field is free text: ".linkedin.com", "facebook.com (3rd
 * party)", ".bing.com (3rd party) or .microsoft.com (3rd party)", "ads-[account].adhese.com", "ut",
 * with stray zero-width spaces. A leading dot is dropped (a cookie domain covers its subdomains
 * either way); anything that is not a plain domain name is skipped.
 */
export function domainsOfField(field: string): string[] {
  const cleaned = field.replace(/[\u200B-\u200D\uFEFF]/g, '').replace(/\(3rd party\)/gi, ' ');
  const domains = new Set<string>();
  for (const token of cleaned.split(/[\s,;]+/)) {
    const domain = token.toLowerCase().replace(/^\.+/, '').replace(/\.$/, '');
    if (DOMAIN.test(domain)) domains.add(domain);
  }
  return [...domains];
}

function columnIndexes(header: string[]): Record<keyof typeof COOKIE_DATABASE_COLUMNS, number> {
  const trimmed = header.map((column) => column.trim());
  const missing: string[] = [];
  const indexes = {} as Record<keyof typeof COOKIE_DATABASE_COLUMNS, number>;
  for (const [key, column] of Object.entries(COOKIE_DATABASE_COLUMNS)) {
    const index = trimmed.indexOf(column);
    if (index < 0) missing.push(column);
    indexes[key as keyof typeof COOKIE_DATABASE_COLUMNS] = index;
  }
  if (missing.length > 0) {
    throw new Error(`Open Cookie Database CSV lacks the column(s): ${missing.join(', ')}`);
  }
  return indexes;
}

/**
 * One classification for a domain from the entries filed under it, which often disagree
 * (google.com lists reCAPTCHA as Functional and Ads as Marketing). A host that serves any cookie
 * needing consent is classed by those entries only: an undeclared request to it before consent
 * is worth reporting, and a false report is cured by declaring the host, where a missed one is
 * silent. Within them the most frequent category wins (ties by TIE_ORDER), then the most
 * frequent vendor of that category.
 */
function settle(entries: CookieClassification[]): CookieClassification {
  const needingConsent = entries.filter((entry) => !isNecessaryCategory(entry.category));
  const candidates = needingConsent.length > 0 ? needingConsent : entries;
  const rank = (category: string) => {
    const index = TIE_ORDER.indexOf(category);
    return index < 0 ? TIE_ORDER.length : index;
  };
  const category = mostFrequent(
    candidates.map((entry) => entry.category),
    rank,
  );
  const vendor = mostFrequent(
    candidates.filter((entry) => entry.category === category).map((entry) => entry.vendor),
    () => 0,
  );
  return Object.freeze({ category, vendor });
}

/** The most frequent value; ties by `rank`, then by first occurrence (sort is stable). */
function mostFrequent(values: string[], rank: (value: string) => number): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort(([a, aCount], [b, bCount]) => bCount - aCount || rank(a) - rank(b))[0][0];
}

/** Builds the lookup tables from the CSV text. Throws when the header lacks a needed column. */
export function parseCookieDatabase(csv: string | Buffer): CookieDatabase {
  const records: string[][] = parse(csv, { bom: true, skip_empty_lines: true });
  if (records.length === 0) throw new Error('Open Cookie Database CSV is empty');
  const column = columnIndexes(records[0]);
  const rows = records.slice(1);

  // The first entry for a name wins: a dozen generic names (token, ts, u) are listed by two
  // vendors, and the CSV's order is the only stable tie-break it offers.
  const exact = new Map<string, CookieClassification>();
  const prefixes = new Map<string, CookieClassification>();
  const byDomain = new Map<string, CookieClassification[]>();
  for (const row of rows) {
    const name = (row[column.name] ?? '').trim();
    const category = (row[column.category] ?? '').trim();
    const vendor = (row[column.vendor] ?? '').trim();
    if (!category) continue;
    const entry = Object.freeze({ category, vendor });
    if (name) {
      const table = (row[column.wildcard] ?? '').trim() === '1' ? prefixes : exact;
      if (!table.has(name)) table.set(name, entry);
    }
    for (const domain of domainsOfField(row[column.domain] ?? '')) {
      const list = byDomain.get(domain) ?? [];
      list.push(entry);
      byDomain.set(domain, list);
    }
  }
  const domains = new Map([...byDomain].map(([domain, entries]) => [domain, settle(entries)] as const));
  // Longest prefix first: probing one slice per distinct length is a handful of Map lookups.
  const prefixLengths = [...new Set([...prefixes.keys()].map((prefix) => prefix.length))].sort(
    (a, b) => b - a,
  );

  return {
    size: { rows: rows.length, names: exact.size, prefixes: prefixes.size, domains: domains.size },
    classifyCookie(name) {
      const found = exact.get(name);
      if (found) return found;
      for (const length of prefixLengths) {
        if (length > name.length) continue;
        const match = prefixes.get(name.slice(0, length));
        if (match) return match;
      }
      return null;
    },
    // The Domain column is where the listed cookie is set, so it names the vendor's hosts. A host
    // matches a domain equal to it or one it is a subdomain of; the most specific domain wins
    // (accounts.google.com before google.com). Meant for third-party hosts: a site that is itself
    // listed (github.com, funda.nl) would find its own host here.
    classifyHost(host) {
      const normalized = host.trim().toLowerCase().replace(/\.$/, '');
      if (!DOMAIN.test(normalized)) return null;
      const labels = normalized.split('.');
      for (let start = 0; start < labels.length - 1; start++) {
        const match = domains.get(labels.slice(start).join('.'));
        if (match) return match;
      }
      return null;
    },
  };
}

/** The vendored CSV, beside the repository root: src/modules/scans → ../../../data. */
export const COOKIE_DATABASE_CSV = new URL(
  '../../../data/open-cookie-database/open-cookie-database.csv',
  import.meta.url,
);

// Read-only reference data, loaded at most once per process and only when a scan first asks; not
// service state, so the module-level cache does not conflict with the service factories.
let loaded: CookieDatabase | undefined;

function database(): CookieDatabase {
  loaded ??= parseCookieDatabase(readFileSync(COOKIE_DATABASE_CSV));
  return loaded;
}

/** Exact name first, then the longest wildcard prefix (`_ga_` matches `_ga_ABC123`); null if unknown. */
export function classifyCookie(name: string): CookieClassification | null {
  return database().classifyCookie(name);
}

/** The vendor and category of a request host (or a parent domain of it) listed in the CSV; null if none. */
export function classifyHost(host: string): CookieClassification | null {
  return database().classifyHost(host);
}
