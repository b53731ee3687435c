import { describe, expect, it } from 'vitest';
import { createCopyTextUnescaper } from '../../../../src/modules/exports/evidence-copy.ts';

/** What COPY's text format sends for these JSON lines: every backslash doubled. */
const copied = (text: string) => Buffer.from(text.replaceAll('\\', '\\\\'));

function unescapeInChunks(input: Buffer, sizes: number[]): string {
  const { unescapeChunk, finish } = createCopyTextUnescaper();
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < input.length; i++) {
    const size = sizes[i % sizes.length];
    out.push(unescapeChunk(input.subarray(at, at + size)));
    at += size;
  }
  finish();
  return Buffer.concat(out).toString();
}

describe('createCopyTextUnescaper', () => {
  const lines = '{"userAgent":"a \\"quoted\\" \\\\ back\\nslash","x":"é\\u0001"}\n{"y":"\\\\\\\\"}\n';

  it('gives back the JSON lines, whatever the chunks (pairs split across them included)', () => {
    const input = copied(lines);
    for (const sizes of [[input.length], [1], [2], [3], [5, 1, 7], [17, 2]]) {
      expect(unescapeInChunks(input, sizes)).toBe(lines);
    }
  });

  it('passes a chunk without a backslash through as it is', () => {
    const chunk = Buffer.from('{"a":"b"}\n');
    expect(createCopyTextUnescaper().unescapeChunk(chunk)).toBe(chunk);
  });

  it('refuses any other escape, and output that ends inside one', () => {
    expect(() => createCopyTextUnescaper().unescapeChunk(Buffer.from('a\\nb'))).toThrow(/escape/);
    const split = createCopyTextUnescaper();
    split.unescapeChunk(Buffer.from('a\\'));
    expect(() => split.unescapeChunk(Buffer.from('t'))).toThrow(/escape/);
    const cut = createCopyTextUnescaper();
    cut.unescapeChunk(Buffer.from('a\\'));
    expect(() => cut.finish()).toThrow(/ended inside/);
  });
});

// store-independent: the COPY text unescaper on buffers, no database
