import http from 'node:http';
import https from 'node:https';
import { DestinationRefused, pinnedLookup, vetDestination } from '../../../platform/http/address-guard.ts';
import { SourceError } from './vendor-list-source.ts';

/**
 * One GET of an outside address by the worker (vendors' storage disclosures, Google's ATP list):
 * the address guard webhooks use too resolves the host and refuses every address that is not public (the
 * cloud's metadata address, the operator's own network), the connection goes to the vetted address
 * only (no second lookup to rebind), redirects are not followed (a redirect could lead anywhere),
 * and the answer is bounded in time and size before anyone parses it. Every failure is a
 * SourceError (never a crash, never the body in a message).
 */
export interface GuardedGetOptions {
  /** Private addresses and plain http allowed (tests, local setups). */
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  accept: string;
}

export interface GuardedAnswer {
  text: string;
  contentType: string;
  cacheControl: string | null;
}

function get(url: URL, addresses: string[], options: GuardedGetOptions): Promise<GuardedAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  const { timeoutMs, maxBytes } = options;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      request.destroy();
      reject(new SourceError(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (error: Error | null, answer?: GuardedAnswer) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(answer as GuardedAnswer);
    };
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: options.accept, 'user-agent': 'consent-service-tcf/1' },
        agent: false,
        lookup: pinnedLookup(addresses),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) {
          response.destroy();
          const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
          return done(new SourceError(`the host answered ${status}${redirect}`));
        }
        if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
          response.destroy();
          return done(new SourceError(`the file is larger than ${maxBytes} bytes`));
        }
        const chunks: Buffer[] = [];
        let total = 0;
        response.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > maxBytes) {
            response.destroy();
            done(new SourceError(`the file is larger than ${maxBytes} bytes`));
          } else chunks.push(chunk);
        });
        response.on('end', () =>
          done(null, {
            text: Buffer.concat(chunks).toString('utf8'),
            contentType: String(response.headers['content-type'] ?? ''),
            cacheControl: response.headers['cache-control'] ?? null,
          }),
        );
        response.on('error', () => done(new SourceError('connection lost')));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      done(new SourceError(`request failed (${error.code ?? 'error'})`)),
    );
    request.end();
  });
}

/** GETs `raw` through the address guard; a refused address is a SourceError like any failed fetch. */
export async function guardedGet(raw: string, options: GuardedGetOptions): Promise<GuardedAnswer> {
  let target: { url: URL; addresses: string[] };
  try {
    target = await vetDestination(raw, {
      // 'live': https only and public addresses only; 'test' with allowPrivate lifts both.
      environment: options.allowPrivate ? 'test' : 'live',
      allowPrivate: options.allowPrivate,
    });
  } catch (error) {
    if (error instanceof DestinationRefused) throw new SourceError(`refused: ${error.message}`);
    throw error;
  }
  return get(target.url, target.addresses, options);
}
