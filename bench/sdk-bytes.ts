/**
 * sdk.js on the wire: its bytes in brotli and gzip (the compression the service applies,
 * src/platform/http/bundle-encodings.ts) against the budget every visitor pays (10,240 bytes in
 * each), and those of each lazily loaded piece. With `--before <checkout>` (another worktree of the
 * repository, with node_modules) it builds that one's sdk.js too, in the same run, and prints the
 * change. test/sdk/bundle.test.ts keeps the budget; this prints where it stands.
 *
 *   npx tsx bench/sdk-bytes.ts [--before ../main]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compress } from '../src/platform/http/bundle-encodings.ts';

const BUDGET = 10_240;

type Built = { sdk: string; pieces?: Record<string, string> } & Record<string, unknown>;

async function buildAt(checkout: string): Promise<Built> {
  const build = await import(pathToFileURL(path.resolve(checkout, 'sdk', 'build.ts')).href);
  return build.buildAll();
}

const wire = (code: string) => ({ br: compress('br', code).length, gzip: compress('gzip', code).length });
const at = process.argv.indexOf('--before');
const before = at > 0 ? await buildAt(process.argv[at + 1]) : null;
const now = await buildAt('.');

const rows: string[][] = [['bundle', 'brotli', 'gzip', 'before brotli', 'before gzip']];
const sdk = wire(now.sdk);
const old = before ? wire(before.sdk) : null;
rows.push(['sdk.js', `${sdk.br}`, `${sdk.gzip}`, old ? `${old.br}` : '', old ? `${old.gzip}` : '']);
for (const [piece, code] of Object.entries(now.pieces ?? {})) {
  const size = wire(code);
  // A checkout names its pieces under `pieces`; older ones returned gpp and tcf beside `sdk`.
  const old = before?.pieces?.[piece] ?? before?.[piece];
  const was = typeof old === 'string' ? wire(old) : null;
  rows.push([`${piece}.js`, `${size.br}`, `${size.gzip}`, was ? `${was.br}` : '', was ? `${was.gzip}` : '']);
}
for (const row of rows) console.log(row.map((cell, i) => (i ? cell.padStart(15) : cell.padEnd(12))).join(''));
const within = sdk.br <= BUDGET && sdk.gzip <= BUDGET;
console.log(
  `sdk.js: ${sdk.br} br, ${sdk.gzip} gzip of a ${BUDGET}-byte budget in each: ${within ? 'within' : 'OVER'}` +
    (old
      ? ` (before: ${old.br} br, ${old.gzip} gzip; ratio ${(sdk.br / old.br).toFixed(2)} br, ${(sdk.gzip / old.gzip).toFixed(2)} gzip)`
      : ''),
);
