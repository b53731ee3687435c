import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { App } from '../../platform/http/types.ts';
import type { SitesService } from '../sites/sites.service.ts';

/** Where the demo page of a test channel is served (printed by `npx consent-service demo`). */
export const demoPagePath = (siteKey: string) => `/demo/${encodeURIComponent(siteKey)}`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A page of the service itself that shows a test channel's banner, so a newcomer sees one before
 * writing any page. Test channels only: they accept pages on localhost and 127.0.0.1 unregistered,
 * which is where the service runs while someone tries it. A live channel's key is a 404 (its banner
 * belongs on its own registered sites, not on the service's origin).
 */
export function demoPage(app: App, deps: { sites: SitesService; baseUrl: string }) {
  app.get<{ Params: { siteKey: string } }>(
    '/demo/:siteKey',
    { schema: { hide: true } },
    async (request, reply: FastifyReply) => {
      const site = await deps.sites.resolve(request.params.siteKey).catch(() => null);
      if (site?.channel.environment !== 'test') {
        return reply
          .code(404)
          .type('text/plain; charset=utf-8')
          .send(
            'No test channel has this site key. Run `npx consent-service demo` for the address of the demo page.\n',
          );
      }
      const evidence = `${deps.baseUrl}/console#/evidence`;
      // The page's own policy: its scripts by nonce (the snippet's tags too; 'strict-dynamic' lets the
      // SDK load tcf.js or gpp.js), the service's origin for the SDK's calls, never framed.
      const nonce = randomBytes(16).toString('base64');
      const service = new URL(deps.baseUrl).origin;
      const csp =
        `default-src 'none'; script-src 'nonce-${nonce}' 'strict-dynamic'; style-src 'self' 'unsafe-inline'; ` +
        `img-src 'self' data:; connect-src 'self' ${service}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
      // The page is on the service's own origin: the direct form, whatever the channel's firstPartyPath.
      const snippet = deps.sites.snippet(site).directHtml.replaceAll('<script', `<script nonce="${nonce}"`);
      return reply
        .headers({
          'Content-Security-Policy': csp,
          'Cache-Control': 'no-store',
          'Referrer-Policy': 'same-origin',
        })
        .type('text/html; charset=utf-8')
        .send(page(escapeHtml(site.channel.name), snippet, escapeHtml(evidence), nonce));
    },
  );
}

function page(channelName: string, snippet: string, evidenceUrl: string, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo page · consent-service</title>
<link rel="icon" href="data:,">
${snippet}
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; }
main { max-width: 42rem; margin: 0 auto; padding: 2rem 1rem 12rem; }
code, pre { font-family: ui-monospace, monospace; background: #f2f2f2; border-radius: 4px; }
code { padding: 0 .25em; } pre { padding: .75rem; overflow-x: auto; }
button { font: inherit; padding: .4rem .9rem; }
</style>
</head>
<body>
<main>
<h1>Demo page</h1>
<p>This page is served by consent-service itself and carries the snippet of the test channel
<strong>${channelName}</strong>, exactly as a site would. The banner is the real one: your choice is
recorded as evidence.</p>
<h2>Your choice on this page</h2>
<pre id="decisions">No choice yet: answer the banner.</pre>
<p><button type="button" id="change">Change my choices</button></p>
<h2>See it as evidence</h2>
<p>Open the <a href="${evidenceUrl}">console's Evidence view</a> (test data) to see the decision
with its receipt. Its events are test data of the demo organization.</p>
</main>
<script nonce="${nonce}">
addEventListener('load', function () {
  var out = document.getElementById('decisions');
  var api = window.ConsentService;
  if (!api) { out.textContent = 'The banner did not load: see the browser console.'; return; }
  function show(decisions) {
    if (!decisions) return;
    var receipt = api.getReceiptUrl();
    out.textContent = JSON.stringify(decisions, null, 2) + (receipt ? '\\n\\nreceipt: ' + receipt : '');
  }
  show(api.getDecisions());
  api.onChange(show);
  document.getElementById('change').addEventListener('click', function () { api.showPreferences(); });
});
</script>
</body>
</html>
`;
}
