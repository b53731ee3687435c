import fs from 'node:fs';
import path from 'node:path';
import { serviceDocument } from '../clients/typescript/scripts/generate.ts';

/** Writes the document GET /v1/openapi.json serves to the given file, for `redocly lint` in CI. */
const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: tsx .ci/openapi-document.ts FILE\n');
  process.exit(2);
}
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, `${JSON.stringify(await serviceDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
