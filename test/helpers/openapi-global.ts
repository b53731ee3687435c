import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { ValidationCounts } from './openapi-validation.ts';

/** Sums the per-file counts of openapi-setup.ts and prints them once, at the end of the run (CI output). */
export default function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-service-openapi-'));
  project.provide('openapiCountsDir', dir);
  return () => {
    const total: ValidationCounts = { validated: 0, notOperations: 0 };
    for (const name of fs.readdirSync(dir)) {
      const counts = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as ValidationCounts;
      total.validated += counts.validated;
      total.notOperations += counts.notOperations;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    process.stdout.write(
      `\nOpenAPI: ${total.validated} responses validated against /v1/openapi.json` +
        ` (${total.notOperations} other /v1 responses reached no documented operation)\n`,
    );
  };
}
