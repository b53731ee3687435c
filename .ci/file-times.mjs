// A vitest reporter beside the JSON one: each test file's whole time (setup files, import, hooks and
// tests), which the JSON report lacks (its per-file span starts at the first test, after beforeAll).
// Written to VITEST_FILE_TIMES as { "<path>": ms }; .ci/summarize.mjs prints the slowest.
import fs from 'node:fs';
import path from 'node:path';

export default class FileTimesReporter {
  onTestRunEnd(testModules) {
    const out = process.env.VITEST_FILE_TIMES;
    if (!out) return;
    const times = {};
    for (const testModule of testModules) {
      const d = testModule.diagnostic();
      const ms =
        d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration + d.duration;
      times[path.relative(process.cwd(), testModule.moduleId)] = Math.round(ms);
    }
    fs.writeFileSync(out, `${JSON.stringify(times, null, 1)}\n`);
  }
}
