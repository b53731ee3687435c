import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { App } from '../../platform/http/types.ts';

/** The console's browser source (TypeScript and CSS) at the repository root, beside `sdk/`. */
const CONSOLE_ENTRY = fileURLToPath(new URL('../../../console/src/main.ts', import.meta.url));
const CONSOLE_CSS = fileURLToPath(new URL('../../../console/src/styles.css', import.meta.url));

/**
 * No inline script or style anywhere, so the policy can be 'self' only; the console is never
 * framed (clickjacking), and sends no Referer outside the service.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

interface Asset {
  body: string;
  etag: string;
}

const asset = (body: string): Asset => ({
  body,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/**
 * Bundled in memory by esbuild on first request, once per process, so `npm start` serves the
 * current source with no build step (esbuild comes with tsx, which runs the service).
 */
let script: Promise<Asset> | null = null;
function consoleScript(): Promise<Asset> {
  script ??= import('esbuild')
    .then(({ build }) =>
      build({
        entryPoints: [CONSOLE_ENTRY],
        bundle: true,
        minify: true,
        format: 'iife',
        platform: 'browser',
        target: ['es2020'],
        legalComments: 'none',
        write: false,
        logLevel: 'silent',
      }),
    )
    .then((result) => asset(result.outputFiles[0].text));
  script.catch(() => {
    script = null;
  });
  return script;
}

let styles: Asset | null = null;
const consoleStyles = () => {
  styles ??= asset(fs.readFileSync(CONSOLE_CSS, 'utf8'));
  return styles;
};

const PAGE = asset(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>consent-service console</title>
<link rel="stylesheet" href="/console/app.css">
<script src="/console/app.js" defer></script>
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`);

function send(reply: FastifyReply, type: string, file: Asset, ifNoneMatch: string | undefined) {
  reply.headers(SECURITY_HEADERS).header('ETag', file.etag).type(type);
  if (ifNoneMatch === file.etag) return reply.code(304).send();
  return reply.send(file.body);
}

/** GET /console (the page; every view is a #/ route of it) and its two assets. */
export function consolePages(app: App) {
  const page = { schema: { hide: true } };
  app.get('/console', page, (request, reply) =>
    send(reply, 'text/html; charset=utf-8', PAGE, request.headers['if-none-match']),
  );
  app.get('/console/', page, (_request, reply) => reply.redirect('/console', 301));
  app.get('/console/app.js', page, async (request, reply) =>
    send(reply, 'text/javascript; charset=utf-8', await consoleScript(), request.headers['if-none-match']),
  );
  app.get('/console/app.css', page, (request, reply) =>
    send(reply, 'text/css; charset=utf-8', consoleStyles(), request.headers['if-none-match']),
  );
}
