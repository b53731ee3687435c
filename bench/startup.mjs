#!/usr/bin/env node
// Start-up cost of `node bin/consent-service.mjs serve` on the embedded store: time to the
// "listening on" line, CPU-seconds (user+sys, at ready and for the whole process including 1 s idle
// and its shutdown, as the README's figures were taken) and max RSS, for a first start (empty
// DATA_DIR) and restarts. Usage:
//   node bench/startup.mjs [--runs N] [--restarts N] [--bin FILE] [-- node flags…]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dash = args.indexOf('--');
const nodeFlags = dash >= 0 ? args.slice(dash + 1) : [];
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && (dash < 0 || i < dash) ? Number(args[i + 1]) : dflt;
};
const runs = opt('--runs', 3);
// --bin FILE: another CLI entry in bin/ (a before version, say: `git show main:bin/consent-service.mjs`).
const binIndex = args.indexOf('--bin');
const bin = binIndex >= 0 ? path.resolve(args[binIndex + 1]) : path.join(ROOT, 'bin/consent-service.mjs');
const restarts = opt('--restarts', 2);
const TICK = 100; // USER_HZ on Linux

function cpuOf(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK; // utime, stime
}

function once(dataDir, port) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, ...nodeFlags, bin, 'serve'], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    });
    let err = '';
    let ready = null;
    let cpuAtReady = null;
    child.stderr.on('data', async (d) => {
      err += d;
      if (ready === null && err.includes('listening on')) {
        ready = Number(process.hrtime.bigint() - started) / 1e9;
        const nodePid = Number(
          fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim(),
        );
        cpuAtReady = cpuOf(nodePid);
        setTimeout(() => process.kill(nodePid, 'SIGTERM'), 1000);
      }
    });
    child.on('exit', (code) => {
      const last = err.trim().split('\n').at(-1).split(' ');
      if (ready === null) return reject(new Error(`no ready (${code}): ${err}`));
      resolve({ ready, cpuAtReady, cpu: Number(last[0]) + Number(last[1]), rssMB: Number(last[2]) / 1024 });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = { first: [] };
for (let r = 1; r <= restarts; r++) rows[`restart ${r}`] = [];
for (let i = 0; i < runs; i++) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'startup-bench-'));
  try {
    rows.first.push(await once(dataDir, 4300 + i));
    for (let r = 1; r <= restarts; r++) rows[`restart ${r}`].push(await once(dataDir, 4300 + i));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
console.log(
  `node ${process.version} ${path.relative(ROOT, bin)} flags [${nodeFlags.join(' ')}], ${runs} runs, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const [name, list] of Object.entries(rows)) {
  const m = (k) => median(list.map((x) => x[k]));
  console.log(
    `${name.padEnd(10)} ready ${m('ready').toFixed(2)} s  cpu@ready ${m('cpuAtReady').toFixed(2)}  cpu ${m('cpu').toFixed(2)}  rss ${m('rssMB').toFixed(0)} MB`,
  );
}
