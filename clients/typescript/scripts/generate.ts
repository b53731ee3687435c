import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { systemClock } from '../../../src/platform/clock.ts';
import { runMigrations } from '../../../src/platform/db/migrate.ts';
import { createEmbeddedStore } from '../../../src/platform/db/store.ts';

export const SCHEMA_PATH = path.resolve(import.meta.dirname, '../src/schema.d.ts');

const HEADER = `/**
 * Generated from consent-service's /v1/openapi.json by \`npm run client:generate\`; do not edit.
 * A test fails when this file no longer matches the service's routes.
 */
`;

/** The TypeScript of an OpenAPI document, as committed in src/schema.d.ts. */
export async function renderSchema(document: unknown): Promise<string> {
  const nodes = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  return HEADER + astToString(nodes);
}

/** The service's OpenAPI document, from the app built on an in-memory embedded store (no listening, no data directory). */
export async function serviceDocument(): Promise<unknown> {
  const store = await createEmbeddedStore();
  // A throwaway data directory: the app may write a generated ledger key there.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-client-generate-'));
  try {
    await runMigrations(store);
    const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir });
    const app = await buildApp({ config, store, clock: systemClock, logger: false });
    const document = app.swagger();
    await app.close();
    return document;
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  fs.writeFileSync(SCHEMA_PATH, await renderSchema(await serviceDocument()));
  process.stdout.write(`wrote ${path.relative(process.cwd(), SCHEMA_PATH)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();
