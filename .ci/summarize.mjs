// Prints one plain closing line from a vitest JSON report: "<label>: N passed, N failed, N skipped".
import fs from 'node:fs';

const [file, label] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0);
