import { describe, expect, it } from 'vitest';
import {
  displayPrefix,
  generateApiKeySecret,
  hashApiKeySecret,
  parseApiKeySecret,
} from '../../../../src/platform/auth/api-key-format.ts';

describe('API key format', () => {
  it('has the environment prefix, 32 chars of base62 body and a checksum', () => {
    const key = generateApiKeySecret('live');
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
    expect(parseApiKeySecret(key)).toEqual({ environment: 'live' });
    expect(parseApiKeySecret(generateApiKeySecret('test'))).toEqual({ environment: 'test' });
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });

  it('rejects every single-character typo through the checksum', () => {
    const key = generateApiKeySecret('test');
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    for (let i = 'svc_test_'.length; i < key.length; i++) {
      const replacement = alphabet[(alphabet.indexOf(key[i]) + 1) % 62];
      const typo = key.slice(0, i) + replacement + key.slice(i + 1);
      expect(parseApiKeySecret(typo), `typo at ${i}`).toBeNull();
    }
  });

  it('rejects other shapes', () => {
    for (const bad of [
      '',
      'svc_test_',
      'svc_prod_abc',
      'Bearer x',
      `svc_test_${'a'.repeat(39)}`,
      'sk_live_x',
    ]) {
      expect(parseApiKeySecret(bad)).toBeNull();
    }
  });

  it('hashes deterministically and differently per key', () => {
    const a = generateApiKeySecret('test');
    const b = generateApiKeySecret('test');
    expect(hashApiKeySecret(a)).toBe(hashApiKeySecret(a));
    expect(hashApiKeySecret(a)).not.toBe(hashApiKeySecret(b));
    expect(hashApiKeySecret(a)).not.toContain(a);
  });
});

// store-independent: API key format, pure functions
