import fs from 'node:fs';
import os from 'node:os';
import type { Comparison } from './load.ts';

export function machine() {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    cpus: os.availableParallelism(),
    cpuModel: model.trim(),
    ramGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    note: 'shared with other engineers during the run (noisy): compare ratios, not absolute figures',
  };
}

const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

export interface Row {
  scenario: string;
  service: string;
  baseline: string;
  ratio: string;
  target: string;
}

export function loadRow(scenario: string, c: Comparison, target: number | null): Row {
  const side = (s: Comparison['service']) =>
    `${f0(s.requestsPerSec)} req/s, p50 ${f1(s.p50Ms)} / p99 ${f1(s.p99Ms)} ms` +
    (s.non2xx || s.errors ? ` (${s.non2xx} non-2xx, ${s.errors} errors)` : '');
  return {
    scenario,
    service: side(c.service),
    baseline: side(c.baseline),
    // The median of the rounds' ratios, and their range.
    ratio: `${f2(c.ratio)} (${f2(Math.min(...c.roundRatios))}–${f2(Math.max(...c.roundRatios))})`,
    target: target === null ? '' : `≥ ${target} ${c.ratio >= target ? 'met' : 'MISSED'}`,
  };
}

export const fmt = { f0, f1, f2 };

/** A Markdown table (it reads as well in a terminal as in the README). */
export function table(rows: Row[]): string {
  const head = ['Scenario', 'Service', 'Baseline', 'Ratio', 'Target'];
  const lines = [head, head.map(() => '---'), ...rows.map((r) => Object.values(r))];
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
