import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { MAX_ATP_FILE_BYTES } from './atp-list-shape.ts';
import { guardedGet } from './guarded-get.ts';
import { maxAgeOf, SourceError } from './vendor-list-source.ts';

/**
 * Reads Google's ATP list from GOOGLE_ATP_URL: by default Google's published CSV over https, through
 * the address guard (guarded-get.ts: public addresses only, no redirects, bounded in time and size),
 * or a `file:` path an operator fills by hand on an install without internet access.
 */

export const ATP_FETCH_TIMEOUT_MS = 20_000;

export interface AtpSourceOptions {
  /** GOOGLE_ATP_ALLOW_PRIVATE_TARGETS: plain http and private addresses (tests, a local mirror). */
  allowPrivate: boolean;
  timeoutMs?: number;
}

export interface AtpSourceFile {
  text: string;
  maxAgeSeconds: number | null;
}

async function readFile(url: string): Promise<AtpSourceFile> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(fileURLToPath(url), 'r');
  } catch (error) {
    throw new SourceError(`cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  try {
    const { size, isFile } = await handle.stat().then((s) => ({ size: s.size, isFile: s.isFile() }));
    if (!isFile) throw new SourceError('the path is not a file');
    if (size > MAX_ATP_FILE_BYTES)
      throw new SourceError(`the file is larger than ${MAX_ATP_FILE_BYTES} bytes`);
    return { text: await handle.readFile('utf8'), maxAgeSeconds: null };
  } finally {
    await handle.close();
  }
}

/** The CSV text at `url`, or a SourceError saying why not (never the body). */
export async function readAtpSource(url: string, options: AtpSourceOptions): Promise<AtpSourceFile> {
  if (new URL(url).protocol === 'file:') return readFile(url);
  const answer = await guardedGet(url, {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs ?? ATP_FETCH_TIMEOUT_MS,
    maxBytes: MAX_ATP_FILE_BYTES,
    accept: 'text/csv, text/plain;q=0.5',
  });
  if (/^text\/html\b/i.test(answer.contentType)) throw new SourceError('the host sent a web page, not CSV');
  return { text: answer.text, maxAgeSeconds: maxAgeOf(answer.cacheControl) };
}

/** The URL without credentials or query, fit for logs and the mirror state. */
export function describeAtpSource(url: string): string {
  const parsed = new URL(url);
  return parsed.protocol === 'file:' ? parsed.href : `${parsed.origin}${parsed.pathname}`;
}
