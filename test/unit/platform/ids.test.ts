import { describe, expect, it } from 'vitest';
import { newId, newTimeOrderedId } from '../../../src/platform/ids.ts';

const FORMAT = /^evt_[0-9A-Za-z]{22}$/;

/** Ids made at each of `times` in turn (several in one millisecond where a time repeats). */
const idsAt = (times: number[]) => times.map((ms) => newTimeOrderedId('evt', new Date(ms)));

describe('time-ordered ids', () => {
  it('keep the format of every id: the prefix and 22 base62 characters', () => {
    expect(newId('evt')).toMatch(FORMAT);
    for (const id of idsAt([0, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(5000, 0, 1)])) {
      expect(id).toMatch(FORMAT);
    }
  });

  it('sort in the order of their times, and of their making within a millisecond, under every collation', () => {
    const second = Date.UTC(2026, 11, 31, 23, 59, 59);
    // Across a year's last second, in one millisecond, and decades apart.
    const times = [
      Date.UTC(1999, 0, 1),
      second,
      second,
      second,
      second + 1,
      second + 999,
      second + 999,
      second + 1000,
      Date.UTC(2100, 5, 1),
    ];
    const made = idsAt(times);
    const bytewise = [...made].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(bytewise).toEqual(made);
    // ICU's linguistic orders (PostgreSQL's ICU collations, and what glibc's locales do for 0-9A-Z).
    for (const locale of ['en-US', 'de-DE', 'sv-SE', 'und']) {
      const collator = new Intl.Collator(locale, { sensitivity: 'variant' });
      expect([...made].sort(collator.compare), locale).toEqual(made);
    }
  });

  it('stay unique within one millisecond, past the counter too', () => {
    const ms = Date.UTC(2027, 0, 1);
    const ids = idsAt(Array.from({ length: 50_000 }, () => ms));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => FORMAT.test(id))).toBe(true);
  });
});

// store-independent: id generation, pure functions
