/**
 * Replaces the vendored Open Cookie Database with a newer copy. Run by hand, never in tests or CI:
 *
 *   npx tsx scripts/refresh-open-cookie-database.ts [path-or-url] [--commit <sha> --date <iso date>]
 *
 * Without a source it downloads the CSV from the repository's master branch. The new file must
 * parse and carry the columns the classifier reads before it replaces the old one; then the commit
 * and blob lines of data/open-cookie-database/README.md are rewritten.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseCookieDatabase } from '../src/modules/scans/cookie-database.ts';

const REPOSITORY = 'jkwakman/Open-Cookie-Database';
const BRANCH = 'master';
const CSV_NAME = 'open-cookie-database.csv';
const DEFAULT_SOURCE = `https://raw.githubusercontent.com/${REPOSITORY}/${BRANCH}/${CSV_NAME}`;

const directory = new URL('../data/open-cookie-database/', import.meta.url);
const csvFile = new URL(CSV_NAME, directory);
const readmeFile = new URL('README.md', directory);

async function readSource(source: string): Promise<Buffer> {
  if (!/^https?:\/\//.test(source)) return readFileSync(source);
  const response = await fetch(source);
  if (!response.ok) throw new Error(`GET ${source}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** The newest commit on the branch that changed the CSV, from GitHub's API; null when unreachable. */
async function upstreamCommit(): Promise<{ sha: string; date: string } | null> {
  const url = `https://api.github.com/repos/${REPOSITORY}/commits?path=${CSV_NAME}&sha=${BRANCH}&per_page=1`;
  try {
    const response = await fetch(url, { headers: { accept: 'application/vnd.github+json' } });
    if (!response.ok) return null;
    const [commit] = (await response.json()) as Array<{
      sha: string;
      commit: { committer: { date: string } };
    }>;
    return commit ? { sha: commit.sha, date: commit.commit.committer.date } : null;
  } catch {
    return null;
  }
}

/** Git's blob id of the content, so a copy can be checked against upstream's tree. */
function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { commit: { type: 'string' }, date: { type: 'string' } },
  });
  const source = positionals[0] ?? DEFAULT_SOURCE;
  const content = await readSource(source);
  const { size } = parseCookieDatabase(content); // throws on a missing column or bad CSV
  if (size.rows === 0) throw new Error(`${source} has a header but no rows`);

  const temporary = new URL(`${CSV_NAME}.tmp`, directory);
  writeFileSync(temporary, content);
  renameSync(temporary, csvFile);

  let commit = values.commit ? { sha: values.commit, date: values.date ?? 'unknown date' } : null;
  if (!commit && source === DEFAULT_SOURCE) commit = await upstreamCommit();
  const commitLine = commit
    ? `- Commit: \`${commit.sha}\` (${commit.date})`
    : `- Commit: unknown (refreshed from ${source} on ${new Date().toISOString().slice(0, 10)})`;
  const blobLine = `- Git blob of the CSV: \`${gitBlobId(content)}\` (${size.rows} rows, ${content.length} bytes)`;
  const readme = readFileSync(readmeFile, 'utf8');
  const updated = readme
    .replace(/^- Commit: .*$/m, commitLine)
    .replace(/^- Git blob of the CSV: .*$/m, blobLine);
  writeFileSync(readmeFile, updated);
  if (updated === readme)
    console.warn('README.md unchanged: its commit and blob lines were not found or already current');

  console.log(
    `${CSV_NAME}: ${size.rows} rows, ${size.names} names, ${size.prefixes} prefixes, ${size.domains} domains`,
  );
  console.log(commitLine);
  console.log('Review the diff and run: npx vitest run test/unit/modules/scans/cookie-database.test.ts');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
