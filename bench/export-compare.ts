/**
 * The export measurement (scenario e, before and after, one seeded database):
 *
 *   npx tsx bench/export-compare.ts [--events 1000000] [--before DIR] [--rounds 3]
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
  options: {
    events: { type: 'string', default: '1000000' },
    before: { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
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

// Every round runs each side once, in a rotating order: the first read of the table after seeding
// is the slowest (cold cache), and whichever side went first would pay for it. Ratios are taken
// within a round, then the median.
const sides: Array<{ name: string; root: string; script: string }> = [
  { name: 'after', root: process.cwd(), script: 'bench/children/export.ts' },
  ...(flags.before ? [{ name: 'before', root: flags.before, script: 'bench/children/export.ts' }] : []),
  { name: 'copy', root: process.cwd(), script: 'bench/children/copy.ts' },
];
const runs = new Map<string, any[]>(sides.map((side) => [side.name, []]));
for (let round = 0; round < Number(flags.rounds); round++) {
  for (const [i] of sides.entries()) {
    const side = sides[(i + round) % sides.length];
    const result = await child(side.root, side.script);
    runs.get(side.name)!.push(result);
    say(`round ${round + 1} ${side.name}: ${JSON.stringify(result)}`);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results: Record<string, any> = {};
for (const side of sides) {
  const all = runs.get(side.name)!;
  results[side.name] = {
    rows: all[0].rows,
    bytes: all[0].bytes,
    seconds: median(all.map((r) => r.seconds)),
    peakRssMb: Math.max(...all.map((r) => r.peakRssMb)),
  };
}
const ratio = (name: string) =>
  Number(median(runs.get(name)!.map((r, i) => r.rowsPerSec / runs.get('copy')![i].rowsPerSec)).toFixed(2));
results.ratios = { after: ratio('after'), before: flags.before ? ratio('before') : null };
fs.rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ events: Number(flags.events), rounds: Number(flags.rounds), ...results }, null, 2)}\n`,
);
