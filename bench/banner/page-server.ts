/**
 * The customer's site: a plain node:http server on a loopback port serving the article's variants
 * and the self-hosted peer files. Text is sent compressed as the request accepts (brotli, else
 * gzip), as a production site or CDN sends it, so every banner's bytes are counted on the same terms.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import type { Asset } from './peers.ts';

export interface PageServer {
  origin: string;
  /** Serves `asset` at `path` (a page or a file), replacing what was there. */
  set(path: string, asset: Asset): void;
  close(): Promise<void>;
}

interface Stored extends Asset {
  br?: Buffer;
  gzip?: Buffer;
}

const compressible = (type: string) => /^text\/|javascript|json|svg/.test(type);

export async function startPageServer(): Promise<PageServer> {
  const files = new Map<string, Stored>();
  const server = http.createServer((req, res) => {
    const file = files.get((req.url ?? '/').split('?')[0]);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const accepts = String(req.headers['accept-encoding'] ?? '');
    const headers: http.OutgoingHttpHeaders = { 'content-type': file.type, 'cache-control': 'no-cache' };
    let body = file.body;
    if (compressible(file.type)) {
      headers.vary = 'Accept-Encoding';
      if (/\bbr\b/.test(accepts) && file.br) {
        body = file.br;
        headers['content-encoding'] = 'br';
      } else if (/\bgzip\b/.test(accepts) && file.gzip) {
        body = file.gzip;
        headers['content-encoding'] = 'gzip';
      }
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    set(path, asset) {
      const stored: Stored = { ...asset };
      if (compressible(asset.type)) {
        stored.br = zlib.brotliCompressSync(asset.body, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length,
          },
        });
        stored.gzip = zlib.gzipSync(asset.body, { level: 9 });
      }
      files.set(path, stored);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
