import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import type { CityResponse, Reader } from 'maxmind';
import { ConfigError } from '../../config.ts';
import { isCountry, subdivisionOf } from './region-codes.ts';

/**
 * The region of a client address from a MaxMind-format database (GeoLite2/GeoIP2 Country or City,
 * DB-IP Lite, or compatible), read with the `maxmind` package's reader.
 *
 * Why not `maxmind.open({ watchForUpdates })`: it polls every 5 s with no way to stop, and a
 * half-written or corrupt replacement makes its callback throw, an unhandled rejection that stops
 * the process. Here a replacement that does not parse is reported and the previous data kept.
 */
export interface GeoIpDatabase {
  /** `FR`, `US-CA` (City databases), or null: address not in the database, or no usable country. */
  lookup(ip: string | undefined): string | null;
  readonly databaseType: string;
  /** Stops watching the file. */
  close(): void;
}

export interface GeoIpOptions {
  /** Poll interval for changes of the file, in ms; false: do not watch. Default 10 s. */
  watchIntervalMs?: number | false;
  onReload?: (info: { databaseType: string }) => void;
  /** A replacement file that could not be read: the previous data stays in use. */
  onReloadError?: (error: Error) => void;
}

/** Fields read from a record; Country and City databases, and `country_code` of compatible ones. */
interface GeoRecord {
  country?: { iso_code?: unknown };
  country_code?: unknown;
  subdivisions?: Array<{ iso_code?: unknown }>;
}

/** Decoded records by data-section offset, bounded: a City database has hundreds of thousands. */
function boundedCache(max: number) {
  const entries = new Map<string | number, unknown>();
  return {
    get: (key: string | number) => entries.get(key),
    set: (key: string | number, value: unknown) => {
      if (entries.size >= max) entries.clear();
      entries.set(key, value);
    },
  };
}

/**
 * The reader class, loaded on the first open: most deployments set no GEOIP_DATABASE, and their
 * start should not load it (`maxmind` is CommonJS, so a synchronous require can load it late).
 */
let readerClass: typeof Reader | undefined;
function loadReaderClass(): typeof Reader {
  readerClass ??= (createRequire(import.meta.url)('maxmind') as typeof import('maxmind')).Reader;
  return readerClass;
}

function parseDatabase(buffer: Buffer): Reader<CityResponse> {
  if (buffer.length >= 2 && buffer[0] === 0x1f && buffer[1] === 0x8b) {
    throw new Error('the file is gzip-compressed; extract the .mmdb first');
  }
  const reader = new (loadReaderClass())<CityResponse>(buffer, { cache: boundedCache(10_000) });
  const { ipVersion, nodeCount, databaseType } = reader.metadata;
  if ((ipVersion !== 4 && ipVersion !== 6) || !Number.isInteger(nodeCount) || nodeCount <= 0) {
    throw new Error('the metadata is not that of a MaxMind DB');
  }
  if (typeof databaseType !== 'string') throw new Error('the metadata has no database_type');
  // One lookup walks the tree and decodes a record: a file cut short fails here, not on a request.
  reader.get(ipVersion === 6 ? '::1' : '127.0.0.1');
  return reader;
}

/** Opens the database at start; a file that is not one stops the process (ConfigError, exit 2). */
export function openGeoIpDatabase(file: string, options: GeoIpOptions = {}): GeoIpDatabase {
  let reader: Reader<CityResponse>;
  let loaded: string;
  try {
    const { bytes, version } = readVersioned(file);
    reader = parseDatabase(bytes);
    loaded = version;
  } catch (error) {
    throw new ConfigError(
      `GEOIP_DATABASE ${JSON.stringify(file)} is not a MaxMind DB file: ${reason(error)}`,
    );
  }

  // Answers by address, bounded: a visitor reads the config on each page view; a lookup walks up to
  // 128 tree nodes and parses the address, a hit is one Map read.
  const recent = new Map<string, string | null>();

  // Polls the file's stat against the version loaded (fs.watchFile compares against its own first
  // stat, which misses a replacement made before that stat). One stat per interval, off the hot path.
  const interval = options.watchIntervalMs ?? 10_000;
  const reload = () => {
    fs.stat(file, (error, stats) => {
      // Missing (mid-replacement) or unchanged: keep what is loaded.
      if (error || stats.size === 0 || versionOf(stats) === loaded) return;
      try {
        const { bytes, version } = readVersioned(file);
        // Tried once per version: a broken file is reported once, not every interval.
        loaded = version;
        reader = parseDatabase(bytes);
        recent.clear();
        options.onReload?.({ databaseType: reader.metadata.databaseType });
      } catch (cause) {
        options.onReloadError?.(new Error(`GEOIP_DATABASE reload failed: ${reason(cause)}`));
      }
    });
  };
  const timer = interval === false ? null : setInterval(reload, interval);
  // The watcher alone never keeps the process alive.
  timer?.unref();

  return {
    get databaseType() {
      return reader.metadata.databaseType;
    },
    lookup(ip) {
      if (!ip) return null;
      let code = recent.get(ip);
      if (code === undefined) {
        code = regionOf(reader, ip);
        if (recent.size >= 10_000) recent.clear();
        recent.set(ip, code);
      }
      return code;
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}

/** The region of an address, from the record's country and (City databases) first subdivision. */
function regionOf(reader: Reader<CityResponse>, ip: string): string | null {
  const address = plainAddress(ip, reader.metadata.ipVersion);
  if (address === null) return null;
  // Country and City records are subsets of a City record; compatible ones differ (country_code).
  const record = reader.get(address) as GeoRecord | null;
  if (!record) return null;
  const rawCountry = record.country?.iso_code ?? record.country_code;
  if (typeof rawCountry !== 'string') return null;
  const country = rawCountry.toUpperCase();
  if (!isCountry(country)) return null;
  const subdivision = record.subdivisions?.[0]?.iso_code;
  if (typeof subdivision === 'string') return subdivisionOf(country, subdivision.toUpperCase()) ?? country;
  return country;
}

const versionOf = (stats: fs.Stats) => `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;

/** The bytes and the version (stat) of the same open file, so a replacement in between cannot mix them. */
function readVersioned(file: string): { bytes: Buffer; version: string } {
  const fd = fs.openSync(file, 'r');
  try {
    const version = versionOf(fs.fstatSync(fd));
    return { bytes: fs.readFileSync(fd), version };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The address to look up, or null when the database cannot answer for it. The reader does not
 * validate input (a bad string walks the tree as zeros), and an IPv4 database has no IPv6 tree.
 * IPv4-mapped IPv6 (`::ffff:192.0.2.1`, what a dual-stack socket reports) is looked up as IPv4.
 */
function plainAddress(ip: string, ipVersion: number): string | null {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  const address = mapped ? mapped[1] : ip;
  const family = net.isIP(address);
  if (family === 0 || (family === 6 && ipVersion === 4)) return null;
  return address;
}

function reason(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ? `${code}` : message;
}
