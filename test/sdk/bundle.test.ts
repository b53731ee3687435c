import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildGpp, buildSdk } from '../../sdk/build.ts';

const MAX_GZIP_BYTES = 15 * 1024;
/**
 * gpp.js is @iabgpp/cmpapi (about 19 KB gzipped) and is loaded only by US opt-out visitors of
 * channels with a gppCmpId; the bound only catches an accidental doubling (a second copy, a map).
 */
const MAX_GPP_GZIP_BYTES = 30 * 1024;

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

  it('gpp.js, the lazily loaded GPP CMP API, is a minified IIFE of its own with no third-party host in it', async () => {
    const code = await buildGpp();
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`gpp.js: ${code.length} bytes, ${gzipped} bytes gzipped`);
    expect(gzipped).toBeLessThanOrEqual(MAX_GPP_GZIP_BYTES);
    expect(code.startsWith('"use strict";(()=>{')).toBe(true);
    expect(code).not.toMatch(/\bimport\s*\(|\brequire\(/);
    // @iabgpp/cmpapi can fetch a vendor list from a URL it is given; none is baked in, none is given.
    expect(code).not.toMatch(/https?:\/\//);
    expect(code).toContain('__consentServiceGpp');
  });
});

// store-independent: the SDK build's bundles, no service
