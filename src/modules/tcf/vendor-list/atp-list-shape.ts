import { parse } from 'csv-parse/sync';
import { SourceError } from './vendor-list-source.ts';

/**
 * Google's Ad Tech Providers list as Google publishes it (`additional-consent-providers.csv`, named
 * in Google's "Additional Consent technical specification"): a header row, then one provider a row,
 * columns provider id, provider name, policy URL, domains. The host is not trusted: a file that is
 * not this list is refused whole (the mirror keeps the list it has), never half stored.
 */

export interface AtpProvider {
  id: number;
  name: string;
  /** The provider's privacy policy; null when the row's is not an http(s) URL. */
  policyUrl: string | null;
  domains: string[];
}

/** Google's list has some hundreds of providers; far more is not that list. */
export const MAX_ATP_PROVIDERS = 20_000;
/** The file is tens of KiB; far more is not that list. */
export const MAX_ATP_FILE_BYTES = 4 * 1024 * 1024;
/** The ids an AC string can carry (additional-consent.schemas.ts). */
const MAX_ID = 999_999_999;

const HEADER = ['provider_id', 'provider_name', 'policy_url', 'domains'];

const isHttpUrl = (value: string) =>
  URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);

/** The checked providers of a CSV text, sorted by id; a SourceError naming the first bad row. */
export function checkAtpList(text: string): AtpProvider[] {
  let rows: string[][];
  try {
    rows = parse(text.replace(/^\uFEFF/, ''), {
      relax_column_count: false,
      skip_empty_lines: true,
      trim: true,
      to: MAX_ATP_PROVIDERS + 2,
    });
  } catch (error) {
    const where = (error as { lines?: number }).lines;
    throw new SourceError(`the ATP list is not valid CSV${where ? ` (line ${where})` : ''}`);
  }
  const header = rows[0]?.map((c) => c.toLowerCase().replace(/\s+/g, '_'));
  if (!header || HEADER.some((name, i) => header[i] !== name)) {
    throw new SourceError(`the ATP list's first row is not the header ${HEADER.join(',')}`);
  }
  if (rows.length > MAX_ATP_PROVIDERS + 1) {
    throw new SourceError(`the ATP list has more than ${MAX_ATP_PROVIDERS} providers`);
  }
  const seen = new Set<number>();
  const providers: AtpProvider[] = [];
  for (const [index, row] of rows.slice(1).entries()) {
    const line = index + 2;
    const [rawId, name, policy, domains] = row;
    const id = /^[1-9][0-9]{0,8}$/.test(rawId ?? '') ? Number(rawId) : Number.NaN;
    if (!Number.isInteger(id) || id > MAX_ID) {
      throw new SourceError(`the ATP list's row ${line} has no valid provider id`);
    }
    if (seen.has(id)) throw new SourceError(`the ATP list names provider ${id} twice (row ${line})`);
    if (!name || name.length > 300) {
      throw new SourceError(`the ATP list's row ${line} (provider ${id}) has no valid name`);
    }
    seen.add(id);
    providers.push({
      id,
      name,
      policyUrl: policy && policy.length <= 2000 && isHttpUrl(policy) ? policy : null,
      domains: (domains ?? '')
        .split(/[\s,;|]+/)
        .filter((d) => d !== '' && d.length <= 253)
        .slice(0, 100),
    });
  }
  if (providers.length === 0) throw new SourceError('the ATP list names no provider');
  return providers.sort((a, b) => a.id - b.id);
}
