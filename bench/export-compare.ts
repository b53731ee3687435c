/**
 * Issue 23's export measurement (scenario e, before and after, one seeded database):
 *
 *   npx tsx bench/export-compare.ts [--events 1000000] [--before DIR]
 *
 * Seeds the events once, then runs bench/children/export.ts of this checkout (`after`: COPY with
 * lines built by PostgreSQL), of `--before`'s checkout (the batch path), and bench/children/copy.ts
 * (the raw COPY baseline), each in its own process so its peak RSS is its own. PostgreSQL only.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE_URL, freshPostgres, prepare, seedEvidence } from './lib/setup.ts';

const { values: flags } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, before: { type: 'string' } },
});
const say = (line: string) => process.stderr.write(`export-compare: ${line}\n`);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-export-compare-'));
const bench = await freshPostgres(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
const fixture = await prepare(bench, dataDir);
const seed = await seedEvidence(bench, fixture, Number(flags.events));
say(`seeded ${flags.events} events in ${seed.seconds.toFixed(1)} s`);

/** Runs `script` of the checkout at `root` and returns its last stdout line as JSON. */
function child(root: string, script: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      env: { ...process.env, ...bench.env, DATA_DIR: dataDir, ORGANIZATION_ID: fixture.organizationId },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
    });
    proc.once('error', reject);
    proc.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${root} ${script}: exit ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop() as string));
    });
  });
}

const results: Record<string, any> = {};
results.after = await child(process.cwd(), 'bench/children/export.ts');
say(`after: ${JSON.stringify(results.after)}`);
if (flags.before) {
  results.before = await child(flags.before, 'bench/children/export.ts');
  say(`before: ${JSON.stringify(results.before)}`);
}
results.copy = await child(process.cwd(), 'bench/children/copy.ts');
say(`copy: ${JSON.stringify(results.copy)}`);
const ratio = (x: any) => Number((x.rowsPerSec / results.copy.rowsPerSec).toFixed(2));
results.ratios = { after: ratio(results.after), before: results.before ? ratio(results.before) : null };
fs.rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ events: Number(flags.events), ...results }, null, 2)}\n`);
