import http from 'node:http';
import https from 'node:https';
import { DestinationRefused, pinnedLookup, vetDestination } from '../webhooks/webhooks.service.ts';
import { checkStorageDisclosure, type StorageDisclosure } from './storage-disclosure-shape.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan, SourceError } from './vendor-list-source.ts';

/**
 * Fetches one vendor's device storage disclosure from its `deviceStorageDisclosureUrl`. The URL is
 * the vendor's (published through IAB's list), so the worker treats it as any outside address: the
 * webhooks' address guard resolves it and refuses every address that is not public (the cloud's
 * metadata address, the operator's own network), the connection goes to the vetted address only (no
 * second lookup to rebind), redirects are not followed, and the answer is bounded in time and size
 * before it is parsed.
 */

/** IAB's files are a few KiB; a vendor with hundreds of cookies stays far below this. */
export const MAX_DISCLOSURE_BYTES = 256 * 1024;
export const DISCLOSURE_TIMEOUT_MS = 10_000;

export interface DisclosureFetchOptions {
  /** TCF_DISCLOSURE_ALLOW_PRIVATE_TARGETS: private addresses and plain http (tests, local setups). */
  allowPrivate: boolean;
  timeoutMs?: number;
}

function get(url: URL, addresses: string[], timeoutMs: number): Promise<string> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      request.destroy();
      reject(new SourceError(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (error: Error | null, text?: string) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(text as string);
    };
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'consent-service-tcf/1' },
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
        const chunks: Buffer[] = [];
        let total = 0;
        response.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > MAX_DISCLOSURE_BYTES) {
            response.destroy();
            done(new SourceError(`the file is larger than ${MAX_DISCLOSURE_BYTES} bytes`));
          } else chunks.push(chunk);
        });
        response.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
        response.on('error', () => done(new SourceError('connection lost')));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      done(new SourceError(`request failed (${error.code ?? 'error'})`)),
    );
    request.end();
  });
}

/** The vendor's checked disclosure, or a SourceError saying why not (never the body). */
export async function fetchStorageDisclosure(
  raw: string,
  options: DisclosureFetchOptions,
): Promise<StorageDisclosure> {
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
  const text = await get(target.url, target.addresses, options.timeoutMs ?? DISCLOSURE_TIMEOUT_MS);
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new SourceError('the file nests too deep');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SourceError('the file is not valid JSON');
  }
  return checkStorageDisclosure(body);
}
