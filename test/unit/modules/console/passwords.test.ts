import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyPassword } from '../../../../src/modules/console/passwords.ts';

describe('member passwords', () => {
  it('hashes with scrypt, salted, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('horse');
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'scrypt$x$8$1$AA$AA')).toBe(false);
    expect(await verifyPassword('correct horse battery', 'bcrypt$whatever')).toBe(false);
  });

  it('requires 12 characters', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('twelve chars')).toBeNull();
  });
});

// store-independent: password hashing (node:crypto), no database
