import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface Refusal {
  /** As in a URL's hostname: lower case, IPv6 in brackets. */
  hostname: string;
  reason: 'non-public' | 'unresolvable';
}

export interface GuardProxy {
  /** `http://127.0.0.1:PORT`, for Chromium's --proxy-server. */
  url: string;
  /** The refusal of this hostname, if the proxy refused it since it started. */
  refusal(hostname: string): Refusal | undefined;
  close(): Promise<void>;
}

export interface GuardProxyOptions {
  allowAddress: (ip: string) => boolean;
  lookup?: Lookup;
  /** Bound on connecting to a vetted address, so a black-holed host frees its socket. */
  connectTimeoutMs?: number;
}

/** Request headers meant for the proxy hop, not the site (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * The browser's only way out: a forward proxy on 127.0.0.1 that resolves every host itself, refuses
 * it when any address fails `allowAddress`, and connects to the address it vetted. Chromium never
 * resolves names (with an HTTP proxy the proxy does), so a page cannot reach an internal address by
 * a name that resolves differently the second time (DNS rebinding): there is no second time.
 * Plain http arrives as absolute-form requests and is forwarded; https and WebSockets arrive as
 * CONNECT and are tunnelled. A refused http request gets a 403 from the proxy, a refused CONNECT a
 * 403 that Chromium reports as a failed tunnel.
 */
export async function startGuardProxy(options: GuardProxyOptions): Promise<GuardProxy> {
  const lookup = options.lookup ?? systemLookup;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const refusals = new Map<string, Refusal>();
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };

  /** The address to connect to, or the refusal; every address is vetted, so a mixed host fails. */
  async function vet(rawHostname: string): Promise<{ address: string } | Refusal> {
    const hostname = rawHostname.toLowerCase();
    const bare = hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (net.isIP(bare)) addresses = [bare];
    else {
      try {
        addresses = (await lookup(bare)).map((entry) => entry.address);
      } catch {
        addresses = [];
      }
    }
    let refusal: Refusal | undefined;
    if (addresses.length === 0) refusal = { hostname, reason: 'unresolvable' };
    else if (!addresses.every((address) => options.allowAddress(address))) {
      refusal = { hostname, reason: 'non-public' };
    }
    if (!refusal) return { address: addresses[0] };
    refusals.set(hostname, refusal);
    return refusal;
  }

  const server = http.createServer(async (req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400, { connection: 'close' }).end();
      return;
    }
    const vetted = await vet(target.hostname);
    if (!('address' in vetted)) {
      res.writeHead(vetted.reason === 'unresolvable' ? 502 : 403, {
        'content-type': 'text/plain',
        connection: 'close',
      });
      res.end(`The scanner's proxy refused ${target.hostname}: ${vetted.reason}.`);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const upstream = http.request({
      host: vetted.address,
      port: Number(target.port || 80),
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
      agent: false,
      timeout: connectTimeoutMs,
    });
    upstream.on('timeout', () => upstream.destroy(new Error('connect timeout')));
    upstream.on('socket', (socket) => {
      track(socket);
      // The connect bound only: a page that streams slowly is the page timeout's business.
      socket.once('connect', () => upstream.setTimeout(0));
    });
    upstream.on('response', (response) => {
      const raw: string[] = [];
      for (let i = 0; i < response.rawHeaders.length; i += 2) {
        if (!HOP_BY_HOP.has(response.rawHeaders[i].toLowerCase())) {
          raw.push(response.rawHeaders[i], response.rawHeaders[i + 1]);
        }
      }
      res.writeHead(response.statusCode ?? 502, response.statusMessage, raw);
      response.pipe(res);
      response.on('error', () => res.destroy());
    });
    upstream.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { connection: 'close' }).end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });

  server.on('connect', async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    let target: URL;
    try {
      target = new URL(`http://${req.url}`);
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const vetted = await vet(target.hostname);
    if (!('address' in vetted)) {
      client.end(
        `HTTP/1.1 ${vetted.reason === 'unresolvable' ? '502 Bad Gateway' : '403 Forbidden'}\r\n\r\n`,
      );
      return;
    }
    const upstream = net.connect({ host: vetted.address, port: Number(target.port || 80) });
    track(upstream);
    upstream.setTimeout(connectTimeoutMs, () => upstream.destroy());
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  server.on('connection', track);
  // Chromium never sends a plain-http Upgrade to a proxy (WebSockets use CONNECT); refuse any.
  server.on('upgrade', (_req, socket: Duplex) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refusal: (hostname) => refusals.get(hostname.toLowerCase()),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
