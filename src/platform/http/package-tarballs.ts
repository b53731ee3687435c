import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { AppError } from './errors.ts';
import type { App } from './types.ts';

/** Where `npm install` packs the npm packages (packages/pack.ts, run by scripts/build.mjs). */
const TARBALLS_DIR = fileURLToPath(new URL('../../../dist/packages/', import.meta.url));

interface PackedPackage {
  name: string;
  version: string;
  file: string;
  integrity: string;
  size: number;
}

/**
 * Reads the index the packing wrote. Read on each call, so a rebuild (a new `npm install`) is served
 * without a restart; the names it lists are the only files served, so no request path reaches the disk.
 */
async function packedPackages(): Promise<PackedPackage[] | null> {
  try {
    return JSON.parse(await fs.promises.readFile(path.join(TARBALLS_DIR, 'index.json'), 'utf8'));
  } catch {
    return null;
  }
}

const notBuilt = () =>
  new AppError(
    'not_found',
    'The package tarballs are not built on this server: run `npm install` (or `npm run packages:pack`) in its checkout.',
  );

/**
 * The npm packages as tarballs (`GET /packages/` lists them, `GET /packages/<file>.tgz` serves one),
 * so an app installs them from the running service while they are not on a registry:
 * `npm install $BASE_URL/packages/consent-service-react-0.1.0.tgz`.
 */
export function packageTarballRoutes(app: App, options: { baseUrl: string }) {
  const urlOf = (file: string) => new URL(`packages/${file}`, `${options.baseUrl.replace(/\/?$/, '/')}`).href;

  app.get('/packages/', { schema: { hide: true } }, async (_request, reply) => {
    const packed = await packedPackages();
    if (!packed) throw notBuilt();
    const packages = packed.map(({ name, version, file, integrity, size }) => ({
      name,
      version,
      url: urlOf(file),
      integrity,
      size,
      install: `npm install ${urlOf(file)}`,
    }));
    return reply.header('Cache-Control', 'no-cache').send({ packages });
  });

  app.get(
    '/packages/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 200 }) }) } },
    async (request, reply) => {
      const packed = await packedPackages();
      if (!packed) throw notBuilt();
      const entry = packed.find((p) => p.file === request.params.file);
      if (!entry) {
        const names = packed.map((p) => p.file).join(', ');
        throw new AppError(
          'not_found',
          `No package tarball ${request.params.file}; this server has ${names}.`,
        );
      }
      const body = await fs.promises.readFile(path.join(TARBALLS_DIR, entry.file));
      return reply
        .type('application/gzip')
        .header('Content-Disposition', `attachment; filename="${entry.file}"`)
        .header('Cache-Control', 'no-cache')
        .header('ETag', `"${entry.integrity}"`)
        .send(body);
    },
  );
}
