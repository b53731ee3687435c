import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';

/**
 * The documented defaults (README "Configuration"), read from an empty environment, and how bad settings are
 * reported.
 */
describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: null,
      dataDir: path.resolve('./data'),
      redisUrl: null,
      rateLimitPerMinute: 100,
      publicRateLimitPerMinute: 120,
      baseUrl: 'http://127.0.0.1:3000',
      docsUrl: 'http://127.0.0.1:3000/docs',
      trustProxy: false,
      sdkCacheBytes: 32 * 1024 * 1024,
    });
    expect(loadConfig({ SDK_CACHE_MB: '4' }).sdkCacheBytes).toBe(4 * 1024 * 1024);
    expect(() => loadConfig({ SDK_CACHE_MB: '0' })).toThrow(/SDK_CACHE_MB/);
  });

  it('derives BASE_URL from HOST and PORT (the address it listens on) and DOCS_URL from BASE_URL', () => {
    expect(loadConfig({ PORT: '8080' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:8080',
      docsUrl: 'http://127.0.0.1:8080/docs',
    });
    expect(loadConfig({ HOST: 'localhost', PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ HOST: '::1' }).baseUrl).toBe('http://[::1]:3000');
    // A wildcard names no address a browser can use: the loopback one stands in.
    expect(loadConfig({ HOST: '0.0.0.0' }).baseUrl).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ HOST: '::' }).baseUrl).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ BASE_URL: 'https://consent.example.com' }).docsUrl).toBe(
      'https://consent.example.com/docs',
    );
  });

  it('reports every bad setting, one line each', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'x', RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: 'mysql://h/db' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as Error).message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).toMatch(/PORT/);
    expect(lines.join('\n')).toMatch(/RATE_LIMIT_PER_MINUTE/);
    expect(lines.join('\n')).toMatch(/DATABASE_URL/);
  });
});

// store-independent: configuration parsing, no service
