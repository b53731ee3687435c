// Prints a suite's closing lines from its vitest JSON report: "<label>: N passed, N failed, N skipped",
// the suite's wall time (SUITE_SECONDS, measured by .ci/run around `npm test`) and the ten slowest
// test files. A file's time comes from .ci/file-times.mjs (setup, import, hooks and tests) when its
// output is given, else from the JSON report (first test's start to last test's end).
import fs from 'node:fs';
import path from 'node:path';

const [file, label, fileTimesPath] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
if (process.env.SUITE_SECONDS) console.log(`${label}: suite took ${process.env.SUITE_SECONDS} s`);

let times = {};
if (fileTimesPath && fs.existsSync(fileTimesPath)) times = JSON.parse(fs.readFileSync(fileTimesPath, 'utf8'));
else {
  for (const result of report.testResults ?? [])
    times[path.relative(process.cwd(), result.name)] = (result.endTime ?? 0) - (result.startTime ?? 0);
}
const slowest = Object.entries(times)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 10);
const total = Object.values(times).reduce((sum, ms) => sum + ms, 0);
console.log(`${label}: ${Object.keys(times).length} files, ${seconds(total)} summed over workers; slowest:`);
for (const [name, ms] of slowest) console.log(`  ${seconds(ms).padStart(8)}  ${name}`);

process.exit(report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0);
