import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * Reads one file of the Global Vendor List from TCF_GVL_URL: an `http(s):` base (IAB's host, or a
 * proxy of it) or a `file:` directory an operator fills by hand (installs without internet). The
 * host is not trusted: what it sends is bounded in time and size before it is parsed, so a slow,
 * huge or broken answer is a failed fetch, never a stalled or crashed worker.
 */

/** IAB's vendor-list.json is a few MiB; far more is not a vendor list. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** The whole request (connect, headers, body), unless TCF_GVL_FETCH_TIMEOUT_SECONDS says otherwise. */
export const FETCH_TIMEOUT_MS = 20_000;

export interface SourceFile {
  body: unknown;
  /** `Cache-Control: max-age` of the answer; null when absent (always for `file:`). */
  maxAgeSeconds: number | null;
}

/** A fetch that failed for a reason worth logging and storing: never a body or a credential. */
export class SourceError extends Error {
  constructor(
    message: string,
    /** The host answered that the file does not exist (a language IAB does not translate into). */
    readonly notFound = false,
  ) {
    super(message);
  }
}

/** The base URL without credentials or query, fit for logs and the mirror state. */
export function describeSource(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.protocol === 'file:' ? url.href : `${url.origin}${url.pathname}`;
}

/** The `max-age` of a Cache-Control header; null when it has none. */
export function maxAgeOf(cacheControl: string | null): number | null {
  const match = /(?:^|[,\s])max-age\s*=\s*"?(\d{1,10})"?/i.exec(cacheControl ?? '');
  return match ? Number(match[1]) : null;
}

/**
 * Deepest nesting a file may have: a vendor list nests 5 levels (list, vendors, vendor, retention,
 * purposes). Checked on the text before it is parsed, so that neither the parser nor anything that
 * walks the result later (serializers, the database driver) meets thousands of levels.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests deeper than `limit` objects and arrays: one pass over the characters,
 * skipping strings, with a counter instead of recursion (so any depth costs only time, linear).
 * Malformed text is the parser's to refuse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

function parseJson(text: string, name: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new SourceError(`${name} nests deeper than ${MAX_JSON_DEPTH} levels, which no vendor list does`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new SourceError(`${name} is not valid JSON`);
  }
}

async function readFileSource(baseUrl: string, name: string): Promise<SourceFile> {
  const dir = fileURLToPath(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const file = `${dir}${name}`;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new SourceError(`${name}: cannot read it from the directory (${code})`, code === 'ENOENT');
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) throw new SourceError(`${name} is larger than ${MAX_FILE_BYTES} bytes`);
    return { body: parseJson(await handle.readFile('utf8'), name), maxAgeSeconds: null };
  } finally {
    await handle.close();
  }
}

/** Redirects followed for one file (within the configured host only). */
const MAX_REDIRECTS = 5;

/**
 * GETs `url`, following redirects only within the configured host (same scheme, host and port as
 * TCF_GVL_URL): a redirect elsewhere could point the worker at any address it can reach.
 */
async function fetchWithinHost(url: URL, name: string, signal: AbortSignal, timeoutMs: number) {
  let current = url;
  for (let hops = 0; ; hops++) {
    let response: Response;
    try {
      response = await fetch(current, {
        signal,
        headers: { accept: 'application/json' },
        redirect: 'manual',
      });
    } catch (error) {
      const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      throw new SourceError(`${name}: request failed (${reason})`);
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel().catch(() => {});
    const next = URL.canParse(location, current.href) ? new URL(location, current) : null;
    if (!next || next.origin !== url.origin) {
      const target = next ? next.origin : 'an address that is not a URL';
      throw new SourceError(
        `${name}: the host redirected to ${target.slice(0, 100)}; only redirects within ${url.origin} are followed`,
      );
    }
    if (hops >= MAX_REDIRECTS) throw new SourceError(`${name}: more than ${MAX_REDIRECTS} redirects`);
    current = next;
  }
}

async function readHttpSource(baseUrl: string, name: string, timeoutMs: number): Promise<SourceFile> {
  const url = new URL(name, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  // Not AbortSignal.timeout: its timer stays pending for the whole timeout after the answer came;
  // this one is cleared as soon as the file is read (or refused).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const signal = deadline.signal;
  try {
    return await readHttpAnswer(url, name, signal, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

async function readHttpAnswer(
  url: URL,
  name: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<SourceFile> {
  const response = await fetchWithinHost(url, name, signal, timeoutMs);
  try {
    if (!response.ok) {
      throw new SourceError(`${name}: the host answered ${response.status}`, response.status === 404);
    }
    const type = response.headers.get('content-type') ?? '';
    if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
      throw new SourceError(`${name}: the host sent ${JSON.stringify(type.slice(0, 60))}, not JSON`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_FILE_BYTES) throw new SourceError(`${name} is larger than ${MAX_FILE_BYTES} bytes`);
    const text = await readBounded(response, name, signal, timeoutMs);
    return { body: parseJson(text, name), maxAgeSeconds: maxAgeOf(response.headers.get('cache-control')) };
  } finally {
    // An unread or partly read body would hold the connection.
    await response.body?.cancel().catch(() => {});
  }
}

/** The body as text, stopping at MAX_FILE_BYTES whatever Content-Length said. */
async function readBounded(
  response: Response,
  name: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_FILE_BYTES) throw new SourceError(`${name} is larger than ${MAX_FILE_BYTES} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    const reason = signal.aborted ? `no complete answer within ${timeoutMs} ms` : 'connection lost';
    throw new SourceError(`${name}: ${reason}`);
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads `name` (`vendor-list.json`, `purposes-fr.json`) under the base URL. */
export function readSourceFile(
  baseUrl: string,
  name: string,
  timeoutMs = FETCH_TIMEOUT_MS,
): Promise<SourceFile> {
  return new URL(baseUrl).protocol === 'file:'
    ? readFileSource(baseUrl, name)
    : readHttpSource(baseUrl, name, timeoutMs);
}
