/**
 * The web server configuration that makes a channel's first-party path (docs/guides/keep-the-choice.md):
 * `<the site's origin><path>/…` forwarded to the service's `/…`, telling it which host the page is on.
 * One text for the guide (docs/guides/keep-the-choice/nginx.conf, checked against this) and the
 * console's channel page, which fills in the channel's path and the service's address.
 */
export function nginxLocation(path: string, serviceUrl: string): string {
  const upstream = serviceUrl.replace(/\/+$/, '');
  return `# consent-service: the channel's first-party path (docs/guides/keep-the-choice.md).
# Put this location in the server block of every site origin registered on the channel, and start
# the service with TRUST_PROXY set to this server's address, so that it believes X-Forwarded-Host.
location ${path}/ {
    # The trailing slash of proxy_pass drops ${path}: ${path}/v1/... reaches the service as /v1/...
    proxy_pass ${upstream}/;
    proxy_ssl_server_name on;
    # The host the page is on: the service sets the decision cookie only on answers for it.
    proxy_set_header X-Forwarded-Host $host;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
}
`;
}
