import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { AppError } from './errors.ts';
import type { App } from './types.ts';

const GUIDES_DIR = fileURLToPath(new URL('../../../docs/guides/', import.meta.url));
const GUIDE_NAME = /^[a-z0-9-]+\.md$/;

/**
 * The repository's guides, served as they are written (`GET /docs/guides/tcf.md`), so the console's
 * "see the guide" links open on the running service, offline too. Markdown reads as plain text; the
 * names are those in docs/guides at start-up (never a path from the request), read on each call.
 */
export function guideRoutes(app: App) {
  const names = new Set(
    fs.existsSync(GUIDES_DIR) ? fs.readdirSync(GUIDES_DIR).filter((n) => GUIDE_NAME.test(n)) : [],
  );
  app.get(
    '/docs/guides/:name',
    { schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      const { name } = request.params;
      if (!names.has(name)) throw new AppError('not_found', `No guide ${name}.`);
      const text = await fs.promises.readFile(path.join(GUIDES_DIR, name), 'utf8');
      return reply
        .type('text/plain; charset=utf-8')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'no-cache')
        .send(text);
    },
  );
}
