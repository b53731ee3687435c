import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evidenceCanonicalBytes, evidenceLeafHash } from '../../../../src/modules/evidence/leaf-hash.ts';
import { maskPseudonym, pseudonymOf } from '../../../../src/modules/evidence/pseudonym.ts';

const event = {
  id: 'evt_0000000000000000000001',
  type: 'consent.recorded',
  channelId: 'ch_0000000000000000000001',
  environment: 'live',
  subject: { pseudonym: `psn_${'ab'.repeat(32)}` },
  decisions: { necessary: 'granted', analytics: 'denied' },
  configVersion: 3,
  policyVersion: '2024-05',
  source: 'banner',
  language: null,
  gpc: false,
  origin: 'https://shop.example.com',
  userAgent: 'Mozilla/5.0 (X11; Linux) “quoted” é',
  ipPrefix: '203.0.113.0/24',
  recordedAt: '2026-11-21T10:00:00Z',
};

describe('evidenceLeafHash', () => {
  it('is SHA-256 over 0x00 and the RFC 8785 bytes (sorted members, no whitespace)', () => {
    const canonical = evidenceCanonicalBytes(event).toString('utf8');
    expect(canonical.startsWith('{"channelId":"ch_0000000000000000000001","configVersion":3,')).toBe(true);
    expect(canonical).toContain('"decisions":{"analytics":"denied","necessary":"granted"}');
    expect(canonical).toContain('"language":null');
    expect(canonical).not.toMatch(/\s"|":\s/);
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(canonical, 'utf8')]))
      .digest('hex');
    expect(evidenceLeafHash(event)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores member order, receipt and ledger; any content change changes it', () => {
    const reordered = Object.fromEntries(Object.entries(event).reverse());
    expect(evidenceLeafHash(reordered)).toBe(evidenceLeafHash(event));
    const withReceipt = { ...event, receipt: { hash: 'x' }, ledger: { leafIndex: 1, auditPath: [] } };
    expect(evidenceLeafHash(withReceipt)).toBe(evidenceLeafHash(event));
    expect(
      evidenceLeafHash({ ...event, decisions: { necessary: 'granted', analytics: 'granted' } }),
    ).not.toBe(evidenceLeafHash(event));
    expect(evidenceLeafHash({ ...event, gpc: true })).not.toBe(evidenceLeafHash(event));
  });

  it('a fixed vector, so the canonical form cannot drift unnoticed', () => {
    expect(evidenceLeafHash({ a: 1, b: 'x' })).toBe(
      createHash('sha256').update(Buffer.from('\u0000{"a":1,"b":"x"}', 'utf8')).digest('hex'),
    );
  });
});

describe('pseudonyms', () => {
  it('psn_ + 64 hex of HMAC-SHA-256, per organization secret; masked keeps the last 4', () => {
    const a = pseudonymOf(Buffer.alloc(32, 1), 'visitor-123');
    expect(a).toMatch(/^psn_[0-9a-f]{64}$/);
    expect(pseudonymOf(Buffer.alloc(32, 1), 'visitor-123')).toBe(a);
    expect(pseudonymOf(Buffer.alloc(32, 2), 'visitor-123')).not.toBe(a);
    expect(pseudonymOf(Buffer.alloc(32, 1), 'visitor-124')).not.toBe(a);
    expect(maskPseudonym(a)).toBe(`psn_****${a.slice(-4)}`);
  });
});

describe('evidenceCanonicalBytes', () => {
  it('writes what the canonicalize package writes (RFC 8785), for any JSON value an event may hold', () => {
    const text = fc.string({ unit: 'binary' });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(text, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(text, json, { maxKeys: 8 }), (event) => {
        const { receipt: _r, ledger: _l, ...hashed } = event;
        let expected: string | Error;
        try {
          expected = canonicalize(hashed) as string;
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) {
          expect(() => evidenceCanonicalBytes(event)).toThrow(expected.message);
        } else {
          expect(evidenceCanonicalBytes(event).toString('utf8')).toBe(expected);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

// store-independent: leaf hashing, a pure function
