import fs from 'node:fs';
import path from 'node:path';
import { afterAll, inject } from 'vitest';
import { counts, validatingFetch } from './openapi-validation.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each test file leaves its count of validated responses (openapi-global.ts sums them). */
    openapiCountsDir: string;
  }
}

// Every response a test file receives from the service is checked (openapi-validation.ts).
globalThis.fetch = validatingFetch(globalThis.fetch);

afterAll(() => {
  const dir = inject('openapiCountsDir');
  if (!dir) return;
  const file = path.join(dir, `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(counts));
});
