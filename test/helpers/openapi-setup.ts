import fs from 'node:fs';
import path from 'node:path';
import { afterAll, inject } from 'vitest';
import { counts, forgetOrigins, validatingFetch } from './openapi-validation.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each test file leaves its count of validated responses (openapi-global.ts sums them). */
    openapiCountsDir: string;
  }
}

// Every response a test file receives from the service is checked (openapi-validation.ts). Once per
// process: when files share a worker process (vitest --no-isolate) this file runs for each of them.
const WRAPPED = Symbol.for('consent-service.test.validatingFetch');
const current = globalThis.fetch as typeof fetch & { [WRAPPED]?: true };
if (!current[WRAPPED])
  globalThis.fetch = Object.assign(validatingFetch(current), { [WRAPPED]: true as const });

afterAll(() => {
  forgetOrigins();
  const dir = inject('openapiCountsDir');
  if (!dir) return;
  const file = path.join(dir, `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(counts));
  // This file's counts are written: the next file in the same process starts from zero.
  counts.validated = 0;
  counts.notOperations = 0;
});
