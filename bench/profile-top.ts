/**
 * Top self-time entries of a `node --cpu-prof` profile, for the closing notes of write-path work:
 *
 *   npx tsx bench/profile-top.ts FILE.cpuprofile [--top 25]
 *
 * Self time is summed per function (name + file + line), as a share of the busy (non-idle) time;
 * "(program)" and "(garbage collector)" are shown as they are.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
};
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    const where = frame.url
      ? ` ${frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'}${where}`;
    selfMicros.set(key, (selfMicros.get(key) ?? 0) + delta);
    total += delta;
  });
  const busy = total - (selfMicros.get('(idle)') ?? 0);
  console.log(
    `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy; % of busy time:`,
  );
  const rows = [...selfMicros]
    .filter(([key]) => key !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top));
  for (const [key, micros] of rows)
    console.log(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${key}`);
}
