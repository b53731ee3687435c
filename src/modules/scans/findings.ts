import { cookieNameMatches, hostMatches, OWN_VENDOR } from '../../shared/scans-matching.ts';
import type { Finding, ScanPhase, ScanSummary } from './scans.tables.ts';

/**
 * Turns what the browser saw into findings: each cookie, storage key and
 * third-party request is matched to a declared technology, classified when undeclared, and judged.
 * Pure, so every rule is tested without a browser.
 */

/** What the browser engine reports for one page (browser/scanner.ts builds it). */
export interface ObservedPage {
  url: string;
  cookies: Array<{ name: string; domain: string; phase: ScanPhase }>;
  storage: Array<{ kind: string; key: string; origin: string; phase: ScanPhase }>;
  requests: Array<{ host: string; resourceType: string; thirdParty: boolean; phase: ScanPhase }>;
}

export interface DeclaredTechnology {
  id: string;
  purposeKeys: string[];
  cookies: Array<{ name: string }>;
  hosts: string[];
}

export interface Classification {
  category: string;
  vendor: string;
}

export interface FindingRules {
  technologies: DeclaredTechnology[];
  /** Keys of the channel's required (strictly necessary) purposes. */
  requiredPurposes: Set<string>;
  /** The regime the banner applied: only `opt-in` asks before anything optional runs. */
  regime: string | null;
  classifyName(name: string): Classification | null;
  classifyHost(host: string): Classification | null;
  isNecessaryCategory(category: string): boolean;
  /** The service's own cookies, storage keys and hosts (the banner's): necessary, never undeclared. */
  ownNames: (name: string) => boolean;
  ownHosts: ReadonlySet<string>;
}

const OWN: Classification = { category: 'Functional', vendor: OWN_VENDOR };

/** The purpose that explains an item: a required one when it has one (that is why it may run). */
function purposeOf(technology: DeclaredTechnology, required: Set<string>): string | null {
  return technology.purposeKeys.find((key) => required.has(key)) ?? technology.purposeKeys[0] ?? null;
}

export function buildFindings(pages: ObservedPage[], rules: FindingRules): Finding[] {
  const findings: Finding[] = [];
  const judged = (
    base: Pick<Finding, 'kind' | 'name' | 'domain' | 'thirdParty' | 'phase' | 'url' | 'detail'>,
    technology: DeclaredTechnology | undefined,
    classification: Classification | null,
  ): Finding => {
    // Optional: a declared item none of whose purposes is required, or an undeclared item the
    // known-cookie database puts in a category that is not strictly necessary. An undeclared item
    // nobody can classify is reported as undeclared, not guessed to be a violation.
    let optional: boolean;
    if (technology) {
      // Declared with no purpose is not a reason to run before consent: still optional.
      optional = !technology.purposeKeys.some((k) => rules.requiredPurposes.has(k));
    } else {
      optional = classification !== null && !rules.isNecessaryCategory(classification.category);
    }
    const beforeChoice = base.phase === 'before-consent' || base.phase === 'after-reject';
    return {
      ...base,
      technologyId: technology?.id ?? null,
      purposeKey: technology ? purposeOf(technology, rules.requiredPurposes) : null,
      classification: technology ? null : classification,
      violation: rules.regime === 'opt-in' && beforeChoice && optional,
    };
  };
  const byName = (name: string) =>
    rules.technologies.find((t) => t.cookies.some((c) => cookieNameMatches(c.name, name)));
  const classifyName = (name: string) => (rules.ownNames(name) ? OWN : rules.classifyName(name));

  for (const page of pages) {
    const pageHost = new URL(page.url).hostname;
    for (const cookie of page.cookies) {
      const domain = cookie.domain.replace(/^\./, '');
      const firstParty = pageHost === domain || pageHost.endsWith(`.${domain}`);
      findings.push(
        judged(
          {
            kind: 'cookie',
            name: cookie.name,
            domain: cookie.domain,
            thirdParty: !firstParty,
            phase: cookie.phase,
            url: page.url,
            detail: null,
          },
          byName(cookie.name),
          classifyName(cookie.name),
        ),
      );
    }
    for (const item of page.storage) {
      const host = new URL(item.origin).host;
      findings.push(
        judged(
          {
            kind: 'storage',
            name: item.key,
            domain: host,
            thirdParty: new URL(item.origin).hostname !== pageHost,
            phase: item.phase,
            url: page.url,
            detail: item.kind,
          },
          byName(item.key),
          classifyName(item.key),
        ),
      );
    }
    for (const request of page.requests) {
      if (!request.thirdParty) continue;
      const own = rules.ownHosts.has(request.host.toLowerCase());
      findings.push(
        judged(
          {
            kind: 'request',
            name: request.host,
            domain: request.host,
            thirdParty: true,
            phase: request.phase,
            url: page.url,
            detail: request.resourceType,
          },
          rules.technologies.find((t) => t.hosts.some((h) => hostMatches(h, request.host))),
          own ? OWN : rules.classifyHost(request.host.replace(/:\d+$/, '')),
        ),
      );
    }
  }
  return sortFindings(findings);
}

const PHASE_ORDER: Record<ScanPhase, number> = { 'before-consent': 0, 'after-reject': 1, 'after-accept': 2 };

/** Violations first, then by phase, kind and name: the order a reader works through them. */
function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      Number(b.violation) - Number(a.violation) ||
      PHASE_ORDER[a.phase] - PHASE_ORDER[b.phase] ||
      a.kind.localeCompare(b.kind) ||
      a.name.localeCompare(b.name) ||
      a.domain.localeCompare(b.domain) ||
      a.url.localeCompare(b.url),
  );
}

/**
 * Counts distinct items, not sightings: a cookie seen in three phases on two pages is one cookie.
 * `undeclared` and `violations` count distinct items that are undeclared or a violation somewhere.
 */
export function summarize(findings: Finding[]): ScanSummary {
  const sets = {
    cookie: new Set<string>(),
    storage: new Set<string>(),
    request: new Set<string>(),
    undeclared: new Set<string>(),
    violations: new Set<string>(),
  };
  for (const f of findings) {
    const id = `${f.kind}\u0000${f.name}\u0000${f.domain}`;
    sets[f.kind].add(id);
    if (f.technologyId === null && f.classification?.vendor !== OWN.vendor) sets.undeclared.add(id);
    if (f.violation) sets.violations.add(id);
  }
  return {
    cookies: sets.cookie.size,
    storage: sets.storage.size,
    requests: sets.request.size,
    undeclared: sets.undeclared.size,
    violations: sets.violations.size,
  };
}
