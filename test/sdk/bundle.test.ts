import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildSdk } from '../../sdk/build.ts';

const MAX_GZIP_BYTES = 15 * 1024;

describe('SDK bundle', () => {
  it('is one minified IIFE of at most 15 KB gzipped, with no third-party host in it', async () => {
    const code = await buildSdk();
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`sdk.js: ${code.length} bytes, ${gzipped} bytes gzipped`);
    expect(gzipped).toBeLessThanOrEqual(MAX_GZIP_BYTES);
    expect(code.startsWith('"use strict";(()=>{')).toBe(true);
    expect(code).not.toMatch(/\bimport\s*\(|\brequire\(/);
    // The only URL the SDK requests is derived from its own src: no absolute http(s) URL is baked in.
    expect(code).not.toMatch(/https?:\/\//);
  });
});
