import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DatabaseUrlError, parseDatabaseUrl, redactDatabaseUrl } from './platform/db/database-url.ts';
import { parseSigningKeyPem } from './platform/signing-key.ts';

/** Settings of one process, read once from the environment at start. */
export interface Config {
  port: number;
  host: string;
  /** PostgreSQL for every write (and reads that must see them); null: the embedded store. May list several hosts. */
  databaseUrl: string | null;
  /** PostgreSQL for reads that may lag a little (a replica): evidence lists, state, analytics, exports. */
  databaseReadUrl: string | null;
  dataDir: string;
  redisUrl: string | null;
  /** Prefix of the rate-limit keys in Redis, so several deployments (or test runs) can share one. */
  rateLimitRedisPrefix: string;
  rateLimitPerMinute: number;
  /** All API keys of one organization together, per minute (an organization's override wins). */
  orgRateLimitPerMinute: number;
  publicRateLimitPerMinute: number;
  /** Console sign-in attempts per minute, per client address and per email. */
  signInRateLimitPerMinute: number;
  baseUrl: string;
  docsUrl: string;
  logLevel: string;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`; unset, it is open (bind it privately). */
  metricsToken: string | null;
  /** `--role worker` only: serve GET /metrics on this port (a worker has no API port); null: none. */
  metricsPort: number | null;
  /** Delays in seconds between webhook attempts; its length is the number of retries. */
  webhookRetryScheduleSeconds: number[];
  /** Lets test-environment destinations reach private addresses (local development, tests). */
  webhookAllowPrivateTargets: boolean;
  /** Lets test channels' tracker scans reach private addresses (local development, tests); live never. */
  scanAllowPrivateTargets: boolean;
  /** The Chromium tracker scans drive; a scan without one fails with a clear failureReason. */
  scannerChromiumPath: string;
  /** Time limit of one page in one scan profile (load, click, settle), and of a whole scan. */
  scanPageTimeoutMs: number;
  scanTimeoutMs: number;
  /** Memory of a scan's browser, all its processes together; past it the scan fails. */
  scanMemoryLimitMb: number;
  /** AES-256 key for webhook secrets at rest; null means a generated one (docs/decisions/webhooks.md). */
  webhookSecretKey: Buffer | null;
  /** Seconds between ledger seals. */
  ledgerSealSeconds: number;
  /**
   * The largest difference between this server's clock and the database's before decisions are
   * refused and the retention purge waits (platform/clock-check.ts), in ms; 0 turns the check off.
   */
  clockSkewMaxMs: number;
  /** How often the clocks are compared, in ms. */
  clockCheckIntervalMs: number;
  /** Ed25519 PKCS#8 PEM that signs tree heads; null means a generated one (docs/decisions/ledger.md). */
  ledgerSigningKey: string | null;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (rate limits, evidence
   * ipPrefix): false (none, the default), true (any), a hop count, or proxy addresses/CIDRs.
   */
  trustProxy: boolean | number | string[];
  /** Request header holding the visitor's country, set by a trusted CDN or proxy; null: not trusted. */
  geoCountryHeader: string | null;
  /** Request header holding the visitor's subdivision (`CA` or `US-CA`); needs geoCountryHeader. */
  geoSubdivisionHeader: string | null;
  /** Absolute path of a MaxMind-format .mmdb for the visitor's region; null: none. */
  geoipDatabase: string | null;
  /** Memory for compressed sdk.js bodies (a config per region in front of the bundle), all sites together. */
  sdkCacheBytes: number;
  /** Memory for config answers (one per site and region, serialized), all sites together. */
  configCacheBytes: number;
  /** A config answer not asked for within this long is dropped from memory. */
  configCacheMaxIdleMs: number;
  /**
   * Where the worker fetches IAB's Global Vendor List: an http(s) base URL, or a file: directory
   * holding IAB's files (installs without internet). Always ends with '/'.
   */
  tcfGvlUrl: string;
  /** Time limit of one vendor list file fetch (connect, headers and body). */
  tcfGvlFetchTimeoutMs: number;
  /**
   * TCF_DISCLOSURE_ALLOW_PRIVATE_TARGETS: vendors' storage disclosure URLs may be plain http and reach
   * private addresses (tests, local setups); off, only https to public addresses is fetched.
   */
  tcfDisclosureAllowPrivateTargets: boolean;
  /** GOOGLE_ATP_URL: Google's ATP list (Additional Consent), an http(s) URL or a file: path. */
  googleAtpUrl: string;
  /** GOOGLE_ATP_ALLOW_PRIVATE_TARGETS: GOOGLE_ATP_URL may be plain http and reach private addresses. */
  googleAtpAllowPrivateTargets: boolean;
}

export class ConfigError extends Error {}

const MB = 1024 * 1024;

function intSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function urlSetting(env: NodeJS.ProcessEnv, name: string, fallback: string, protocols: string[]): string {
  const raw = env[name] || fallback;
  try {
    const url = new URL(raw);
    if (!protocols.includes(url.protocol)) throw new Error('protocol');
  } catch {
    // A URL may carry a password (user:secret@): never echoed.
    throw new ConfigError(`${name} must be a ${protocols.join(' or ')} URL, got "${redactDatabaseUrl(raw)}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** DATABASE_URL / DATABASE_READ_URL: one host or a host list (database-url.ts); never echoed with its password. */
function databaseUrlSetting(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (!raw) return null;
  try {
    parseDatabaseUrl(raw);
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new ConfigError(`${name} ${error.message}`);
    throw error;
  }
  return raw;
}

const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

function retryScheduleSetting(env: NodeJS.ProcessEnv): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE;
  if (raw === undefined || raw.trim() === '') return DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.length > 50 || steps.some((n) => !Number.isInteger(n) || n < 1 || n > 7 * 86_400)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds from 1 to 604800 (at most 50), got "${raw}"`,
    );
  }
  return steps;
}

function keySetting(env: NodeJS.ProcessEnv, name: string): Buffer | null {
  const raw = env[name];
  if (!raw) return null;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== raw.replace(/=+$/, '')) {
    // Never echo the value: it is a secret.
    throw new ConfigError(`${name} must be the base64 of exactly 32 bytes`);
  }
  return key;
}

function signingKeySetting(env: NodeJS.ProcessEnv): string | null {
  const raw = env.LEDGER_SIGNING_KEY;
  if (!raw) return null;
  try {
    parseSigningKeyPem(raw);
  } catch (error) {
    // Never echo the value: it is a private key.
    throw new ConfigError(`LEDGER_SIGNING_KEY ${(error as Error).message}`);
  }
  return raw;
}

/** TRUST_PROXY: "false"/unset, "true", a hop count 1–10, or comma-separated proxy addresses or CIDRs. */
function trustProxySetting(env: NodeJS.ProcessEnv): Config['trustProxy'] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return intSetting(env, 'TRUST_PROXY', 0, 1, 10);
  const entries = raw.split(',').map((entry) => entry.trim());
  const valid = (entry: string) => {
    const [address, bits, extra] = entry.split('/');
    if (extra !== undefined || net.isIP(address) === 0) return false;
    if (bits === undefined) return true;
    const max = net.isIP(address) === 4 ? 32 : 128;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
  };
  const bad = entries.filter((entry) => !valid(entry));
  if (bad.length > 0)
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a hop count (1-10) or comma-separated addresses/CIDRs; bad: ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
    );
  return entries;
}

/** RFC 9110 field-name (a token), as a proxy would send it. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

function headerNameSetting(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return null;
  if (!HEADER_NAME.test(raw)) throw new ConfigError(`${name} must be an HTTP header name, got "${raw}"`);
  return raw;
}

/**
 * The region headers are believed only when named; a subdivision alone would be a region without
 * a country, so GEO_SUBDIVISION_HEADER needs GEO_COUNTRY_HEADER.
 */
function geoHeadersSetting(env: NodeJS.ProcessEnv): [string | null, string | null] {
  const country = headerNameSetting(env, 'GEO_COUNTRY_HEADER');
  const subdivision = headerNameSetting(env, 'GEO_SUBDIVISION_HEADER');
  if (subdivision !== null && country === null) {
    throw new ConfigError('GEO_SUBDIVISION_HEADER needs GEO_COUNTRY_HEADER to be set too');
  }
  return [country, subdivision];
}

/** The metadata marker every MaxMind DB ends with (within its last 128 KiB), before its metadata. */
const MMDB_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

/**
 * GEOIP_DATABASE: a readable file that looks like a MaxMind DB. The regions module parses it at
 * start (config imports no module); this catches the common mistakes in the same one-line-each list.
 */
function geoipDatabaseSetting(env: NodeJS.ProcessEnv): string | null {
  const raw = env.GEOIP_DATABASE ?? '';
  if (raw.trim() === '') return null;
  const file = path.resolve(raw);
  let tail: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const { size } = fs.fstatSync(fd);
      const head = Buffer.alloc(2);
      fs.readSync(fd, head, 0, 2, 0);
      if (head[0] === 0x1f && head[1] === 0x8b) {
        throw new ConfigError(`GEOIP_DATABASE "${raw}" is gzip-compressed; extract the .mmdb file`);
      }
      tail = Buffer.alloc(Math.min(size, 128 * 1024));
      fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`GEOIP_DATABASE must be a readable .mmdb file, got "${raw}" (${code})`);
  }
  if (!tail.includes(MMDB_MARKER)) {
    throw new ConfigError(`GEOIP_DATABASE "${raw}" is not a MaxMind DB (.mmdb) file`);
  }
  return file;
}

export const DEFAULT_TCF_GVL_URL = 'https://vendor-list.consensu.org/v3/';

export const DEFAULT_GOOGLE_ATP_URL = 'https://storage.googleapis.com/tcfac/additional-consent-providers.csv';

/** GOOGLE_ATP_URL: an http(s) URL of the CSV, or a file: path to a copy of it. */
function atpUrlSetting(env: NodeJS.ProcessEnv): string {
  const raw = (env.GOOGLE_ATP_URL ?? '').trim() || DEFAULT_GOOGLE_ATP_URL;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new ConfigError(`GOOGLE_ATP_URL must be an http:, https: or file: URL, got "${raw}"`);
  }
  if (
    url.protocol === 'file:' &&
    ((url.host !== '' && url.host !== 'localhost') || url.pathname.endsWith('/'))
  ) {
    throw new ConfigError(`GOOGLE_ATP_URL must name a local file (file:///path/list.csv), got "${raw}"`);
  }
  return url.href;
}

/** TCF_GVL_URL: an http(s) base or a file: directory; kept with a trailing '/' so file names resolve under it. */
function gvlUrlSetting(env: NodeJS.ProcessEnv): string {
  const raw = (env.TCF_GVL_URL ?? '').trim() || DEFAULT_TCF_GVL_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`TCF_GVL_URL must be an http:, https: or file: URL, got "${raw}"`);
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new ConfigError(`TCF_GVL_URL must be an http:, https: or file: URL, got "${raw}"`);
  }
  if (url.protocol === 'file:' && url.host !== '' && url.host !== 'localhost') {
    throw new ConfigError(`TCF_GVL_URL must name a local directory (file:///path/), got "${raw}"`);
  }
  if (url.search || url.hash) {
    throw new ConfigError(`TCF_GVL_URL must be a base URL without query or fragment, got "${raw}"`);
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevelSetting(env: NodeJS.ProcessEnv): string {
  const raw = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(raw))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

/**
 * Reads every setting, then throws one ConfigError listing every bad one (one line each), so an
 * operator fixes them all in one go instead of one per restart.
 */
/**
 * The default BASE_URL: the address the server listens on, so the links it gives out (snippets,
 * receipts, problem types) work as they are on a default install. A wildcard host (0.0.0.0, ::)
 * names no address a browser can use, so the loopback one stands in: set BASE_URL to the public
 * address whenever the service is reached by another name.
 */
function listeningUrl(host: string, port: number): string {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '[::]';
  const name = wildcard ? '127.0.0.1' : host;
  const bracketed = name.includes(':') && !name.startsWith('[') ? `[${name}]` : name;
  return `http://${bracketed}:${port}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const read = <T>(setting: () => T, fallback: T): T => {
    try {
      return setting();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error.message);
      return fallback;
    }
  };
  const port = read(() => intSetting(env, 'PORT', 3000, 0, 65535), 3000);
  const host = env.HOST || '127.0.0.1';
  const listening = listeningUrl(host, port);
  const baseUrl = read(() => urlSetting(env, 'BASE_URL', listening, ['http:', 'https:']), listening);
  const geoHeaders = read(() => geoHeadersSetting(env), [null, null]);
  const config: Config = {
    port,
    host,
    databaseUrl: read(() => databaseUrlSetting(env, 'DATABASE_URL'), null),
    databaseReadUrl: read(() => databaseUrlSetting(env, 'DATABASE_READ_URL'), null),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    redisUrl: env.REDIS_URL
      ? read(() => urlSetting(env, 'REDIS_URL', '', ['redis:', 'rediss:']), null)
      : null,
    rateLimitRedisPrefix: env.RATE_LIMIT_REDIS_PREFIX || 'consent-service:rate-limit',
    rateLimitPerMinute: read(() => intSetting(env, 'RATE_LIMIT_PER_MINUTE', 100, 1, 1_000_000), 100),
    orgRateLimitPerMinute: read(() => intSetting(env, 'ORG_RATE_LIMIT_PER_MINUTE', 1000, 1, 1_000_000), 1000),
    publicRateLimitPerMinute: read(
      () => intSetting(env, 'PUBLIC_RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000),
      120,
    ),
    signInRateLimitPerMinute: read(
      () => intSetting(env, 'SIGN_IN_RATE_LIMIT_PER_MINUTE', 10, 1, 1_000_000),
      10,
    ),
    baseUrl,
    docsUrl: read(
      () => urlSetting(env, 'DOCS_URL', `${baseUrl}/docs`, ['http:', 'https:']),
      `${baseUrl}/docs`,
    ),
    logLevel: read(() => logLevelSetting(env), 'info'),
    metricsToken: env.METRICS_TOKEN || null,
    metricsPort: env.METRICS_PORT ? read(() => intSetting(env, 'METRICS_PORT', 0, 1, 65535), null) : null,
    webhookRetryScheduleSeconds: read(() => retryScheduleSetting(env), DEFAULT_WEBHOOK_RETRY_SCHEDULE),
    webhookAllowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
    webhookSecretKey: read(() => keySetting(env, 'WEBHOOK_SECRET_KEY'), null),
    scanAllowPrivateTargets: env.SCAN_ALLOW_PRIVATE_TARGETS === 'true',
    scannerChromiumPath: env.SCANNER_CHROMIUM_PATH || '/usr/bin/chromium',
    scanPageTimeoutMs: 1000 * read(() => intSetting(env, 'SCAN_PAGE_TIMEOUT_SECONDS', 30, 5, 300), 30),
    scanTimeoutMs: 1000 * read(() => intSetting(env, 'SCAN_TIMEOUT_SECONDS', 600, 30, 3600), 600),
    scanMemoryLimitMb: read(() => intSetting(env, 'SCAN_MEMORY_LIMIT_MB', 1024, 256, 65_536), 1024),
    ledgerSealSeconds: read(() => intSetting(env, 'LEDGER_SEAL_SECONDS', 5, 1, 86_400), 5),
    clockSkewMaxMs: 1000 * read(() => intSetting(env, 'CLOCK_SKEW_MAX_SECONDS', 60, 0, 86_400), 60),
    clockCheckIntervalMs: 1000 * read(() => intSetting(env, 'CLOCK_CHECK_SECONDS', 60, 1, 3600), 60),
    ledgerSigningKey: read(() => signingKeySetting(env), null),
    trustProxy: read(() => trustProxySetting(env), false),
    geoCountryHeader: geoHeaders[0],
    geoSubdivisionHeader: geoHeaders[1],
    geoipDatabase: read(() => geoipDatabaseSetting(env), null),
    sdkCacheBytes: MB * read(() => intSetting(env, 'SDK_CACHE_MB', 32, 1, 4096), 32),
    configCacheBytes: MB * read(() => intSetting(env, 'CONFIG_CACHE_MB', 32, 1, 4096), 32),
    configCacheMaxIdleMs:
      1000 * read(() => intSetting(env, 'CONFIG_CACHE_MAX_IDLE_SECONDS', 600, 1, 86_400), 600),
    tcfGvlUrl: read(() => gvlUrlSetting(env), DEFAULT_TCF_GVL_URL),
    tcfDisclosureAllowPrivateTargets: env.TCF_DISCLOSURE_ALLOW_PRIVATE_TARGETS === 'true',
    googleAtpUrl: read(() => atpUrlSetting(env), DEFAULT_GOOGLE_ATP_URL),
    googleAtpAllowPrivateTargets: env.GOOGLE_ATP_ALLOW_PRIVATE_TARGETS === 'true',
    tcfGvlFetchTimeoutMs: 1000 * read(() => intSetting(env, 'TCF_GVL_FETCH_TIMEOUT_SECONDS', 20, 1, 300), 20),
  };
  if (env.DATABASE_READ_URL && !env.DATABASE_URL)
    problems.push('DATABASE_READ_URL needs DATABASE_URL: the embedded store has no replicas');
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return config;
}
