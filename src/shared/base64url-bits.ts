/**
 * The bit reader of the hostile-input bounds on GPP sections (src/modules/gpp/gpp-section-bounds.ts)
 * and TC strings (src/modules/tcf/tc-strings/tc-string-bounds.ts): both read the sizes a decoder would walk
 * from a segment's base64url characters, 6 bits each, high bit first, without decoding it.
 */

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUES = new Map([...BASE64URL].map((char, value) => [char, value]));

/** A segment's 6-bit values, or null when a character is not base64url. */
export function base64urlValues(segment: string): Uint8Array | null {
  const values = new Uint8Array(segment.length);
  for (let i = 0; i < segment.length; i++) {
    const value = VALUES.get(segment[i]);
    if (value === undefined) return null;
    values[i] = value;
  }
  return values;
}

/** The bits ran out: the decoder refuses the field there, having walked only what came before. */
export class BitsEnded extends Error {}

/** A segment's bits, read on demand from its 6-bit values; reading past the end throws BitsEnded. */
export class Bits {
  position = 0;
  private readonly length: number;
  constructor(private readonly values: Uint8Array) {
    this.length = values.length * 6;
  }

  bit(): number {
    if (this.position >= this.length) throw new BitsEnded();
    const value = this.values[(this.position / 6) | 0];
    const shift = 5 - (this.position % 6);
    this.position++;
    return (value >> shift) & 1;
  }

  int(width: number): number {
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 2 + this.bit();
    return value;
  }

  skip(width: number): void {
    if (this.position + width > this.length) throw new BitsEnded();
    this.position += width;
  }
}
