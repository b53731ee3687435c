import { describe, expect, it } from 'vitest';
import { buildAll, PIECE_NAMES } from '../../sdk/build.ts';
import { compress } from '../../src/platform/http/bundle-encodings.ts';

/**
 * sdk.js's budget on the wire, in both encodings the service sends it in (the compression it
 * applies itself, src/platform/http/bundle-encodings.ts): every visitor of every site pays it.
 * What only some visitors need is a lazily loaded piece (sdk/src/bundle-urls.ts), which pays its
 * own bytes.
 */
const SDK_BUDGET_BYTES = 10_240;
/**
 * gpp.js is @iabgpp/cmpapi (about 20 KB gzipped) and tcf.js IAB's core library and the layers
 * (about 53 KB); both load only where their framework applies. Their bounds only catch an
 * accidental doubling (a second copy, a source map).
 */
const PIECE_GZIP_BOUNDS: Record<string, number> = {
  gpp: 30 * 1024,
  tcf: 70 * 1024,
  notice: 4 * 1024,
  handoff: 4 * 1024,
  import: 4 * 1024,
  identity: 4 * 1024,
  debug: 8 * 1024,
};

const wire = (code: string) => ({ br: compress('br', code).length, gzip: compress('gzip', code).length });

/** Built once for the file: each build is a second of esbuild. */
let built: ReturnType<typeof buildAll> | undefined;
const bundles = () => {
  built ??= buildAll();
  return built;
};

describe('SDK bundles', () => {
  it(`sdk.js is one minified IIFE within ${SDK_BUDGET_BYTES} bytes in brotli and in gzip, with no third-party host and no lazily loaded piece in it`, async () => {
    const { sdk } = await bundles();
    const size = wire(sdk);
    console.log(`sdk.js: ${sdk.length} bytes, ${size.br} brotli, ${size.gzip} gzip`);
    expect(size.br).toBeLessThanOrEqual(SDK_BUDGET_BYTES);
    expect(size.gzip).toBeLessThanOrEqual(SDK_BUDGET_BYTES);
    expect(sdk.startsWith('"use strict";(()=>{')).toBe(true);
    expect(sdk).not.toMatch(/\bimport\s*\(|\brequire\(/);
    // The only URL the SDK requests is derived from its own src: no absolute http(s) URL is baked in.
    expect(sdk).not.toMatch(/https?:\/\//);
    // What the pieces carry stays out: the notice's markup, the handoff calls, the readers of other
    // CMPs' cookies, the banner's words in other languages (the config brings a channel's own), and
    // the developer panel.
    for (const marker of [
      'data-consent-notice',
      '/handoffs',
      'datestamp',
      'Alle akzeptieren',
      'data-consent-debug',
    ]) {
      expect(sdk, marker).not.toContain(marker);
    }
  });

  it.each(PIECE_NAMES)(
    '%s.js is a minified IIFE of its own that registers itself, with no third-party host',
    async (piece) => {
      const code = (await bundles()).pieces[piece];
      const size = wire(code);
      console.log(`${piece}.js: ${code.length} bytes, ${size.br} brotli, ${size.gzip} gzip`);
      expect(size.gzip).toBeLessThanOrEqual(PIECE_GZIP_BOUNDS[piece]);
      expect(code.startsWith('"use strict";(()=>{')).toBe(true);
      expect(code).not.toMatch(/\bimport\s*\(|\brequire\(/);
      // @iabgpp/cmpapi can fetch a vendor list from a URL it is given; none is baked in, none is given.
      expect(code).not.toMatch(/https?:\/\//);
      expect(code).toContain(`__consentService${piece[0].toUpperCase()}${piece.slice(1)}`);
    },
  );
});

// store-independent: the SDK build's bundles, no service
