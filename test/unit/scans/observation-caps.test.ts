import { describe, expect, it } from 'vitest';
import {
  capName,
  MAX_NAME_LENGTH,
  PhaseObservations,
} from '../../../src/modules/scans/browser/observations.ts';

describe('names a scan records', () => {
  it('keeps a name of up to 256 characters as it is', () => {
    expect(capName('_ga')).toBe('_ga');
    const longest = 'x'.repeat(MAX_NAME_LENGTH);
    expect(capName(longest)).toBe(longest);
  });

  it('cuts a longer one to 256 characters, ending with how long it was', () => {
    const name = capName(`k${'x'.repeat(1024 * 1024)}`);
    expect(name).toHaveLength(MAX_NAME_LENGTH);
    expect(name).toMatch(/^kx+…\(1048577 characters\)$/);
    // A cut read in the page comes with the whole length.
    expect(capName('k'.repeat(MAX_NAME_LENGTH), 5_000_000)).toMatch(/^k+…\(5000000 characters\)$/);
  });

  it('never leaves half a surrogate pair, and replaces lone ones', () => {
    expect(capName('a\ud800b\udc00c')).toBe('a\ufffdb\ufffdc');
    expect(capName('😀')).toBe('😀');
    const marker = `…(1000 characters)`;
    const cutAt = MAX_NAME_LENGTH - marker.length;
    // The emoji straddles the cut: it is left out whole.
    const name = capName(`${'a'.repeat(cutAt - 1)}😀${'b'.repeat(1000 - cutAt - 1)}`);
    expect(name).toBe(`${'a'.repeat(cutAt - 1)}${marker}`);
  });
});

describe('a phase’s observations', () => {
  const page = 'https://shop.example.com/';

  it('records capped cookie names and storage keys, one per capped name', () => {
    const seen = new PhaseObservations('before-consent', page);
    seen.addCookie({ name: 'c'.repeat(4000), domain: 'shop.example.com', path: '/', expires: -1 });
    seen.addStorage('localStorage', 'https://shop.example.com', 'k'.repeat(MAX_NAME_LENGTH), 1024 * 1024);
    const [cookie] = seen.cookies.values();
    const [storage] = seen.storage.values();
    expect(cookie?.name).toMatch(/^c+…\(4000 characters\)$/);
    expect(storage?.key).toMatch(/^k+…\(1048576 characters\)$/);
    expect(storage?.key).toHaveLength(MAX_NAME_LENGTH);
  });

  it('drops requests to hosts too long to resolve, and names them cut', () => {
    const seen = new PhaseObservations('before-consent', page);
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.example`;
    seen.addRequest(new URL(`https://${long}/p.gif`), 'image');
    seen.addRequest(new URL('https://cdn.tracker.example/t.js'), 'script');
    seen.addRequest(new URL('https://internal.example/t.js'), 'script');
    const dropped = seen.dropRequestsTo((hostname) => hostname === 'internal.example');
    expect(dropped.sort()).toEqual([capName(long), 'internal.example'].sort());
    expect([...seen.requests.values()].map((r) => r.host)).toEqual(['cdn.tracker.example']);
  });
});

// store-independent: observation caps, pure functions
