/**
 * The globals the core relies on: what Hermes (React Native), Node 20 and every browser all have.
 * The package is type-checked against this file instead of the DOM library, so a browser-only API
 * used by mistake fails the build rather than a React Native app at run time. Not published: the
 * declarations of the package's API name none of these.
 */
declare function fetch(
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<any>;
}>;
declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(timer: any): void;
/** Absent from Hermes unless the app installs a polyfill (react-native-get-random-values). */
declare var crypto: { getRandomValues<T extends Uint8Array>(array: T): T } | undefined;
declare var console: { warn(...data: unknown[]): void; error(...data: unknown[]): void };
