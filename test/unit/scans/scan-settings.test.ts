import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';

describe('SCAN_MEMORY_LIMIT_MB', () => {
  it('is 1024 by default, and a whole number of MB from 256 to 65536', () => {
    expect(loadConfig({}).scanMemoryLimitMb).toBe(1024);
    expect(loadConfig({ SCAN_MEMORY_LIMIT_MB: '300' }).scanMemoryLimitMb).toBe(300);
    // Below 256 every scan would fail: an idle scan browser holds about 200 MB.
    for (const bad of ['255', '65537', '1.5', 'lots']) {
      expect(() => loadConfig({ SCAN_MEMORY_LIMIT_MB: bad })).toThrow(
        `SCAN_MEMORY_LIMIT_MB must be an integer from 256 to 65536, got "${bad}"`,
      );
    }
  });
});

// store-independent: scan configuration parsing, no service
