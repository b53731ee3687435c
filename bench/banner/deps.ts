/**
 * The bench's own dependencies (bench/banner/package.json: Lighthouse, chrome-launcher and the peer
 * banners), installed on first use into bench/banner/node_modules and loaded by path, so neither the
 * root package nor the root typecheck needs them. The types below are the few parts the bench uses.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const MODULES = path.join(BENCH_DIR, 'node_modules');

/** The versions package.json pins, by package. */
export function pinned(): Record<string, string> {
  return JSON.parse(fs.readFileSync(path.join(BENCH_DIR, 'package.json'), 'utf8')).dependencies;
}

function installedVersion(name: string): string | null {
  const file = path.join(MODULES, name, 'package.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).version : null;
}

/** Installs the pinned packages (from package-lock.json) unless each is already there at its version. */
export function ensureInstalled(say: (line: string) => void) {
  const missing = Object.entries(pinned()).filter(([name, version]) => installedVersion(name) !== version);
  if (missing.length === 0) return;
  say(`installing ${missing.map(([n, v]) => `${n}@${v}`).join(', ')} into bench/banner/node_modules`);
  execFileSync('npm', ['install', '--prefix', BENCH_DIR, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

export interface AuditResult {
  numericValue?: number;
  errorMessage?: string;
  details?: { items?: any[] };
}

export interface TraceEvent {
  name: string;
  ts: number;
  args?: { data?: Record<string, any> };
}

export interface RunnerResult {
  lhr: {
    audits: Record<string, AuditResult>;
    runtimeError?: { code: string; message: string };
    runWarnings: string[];
  };
  artifacts: { Trace: { traceEvents: TraceEvent[] } };
}

export type LighthouseFn = (
  url: string,
  flags: Record<string, unknown>,
  config?: unknown,
) => Promise<RunnerResult | undefined>;

export interface Chrome {
  port: number;
  kill(): Promise<void> | void;
}

export interface Deps {
  lighthouse: LighthouseFn;
  desktopConfig: unknown;
  launchChrome(options: { chromePath: string; chromeFlags: string[] }): Promise<Chrome>;
}

const load = (file: string) => import(pathToFileURL(path.join(MODULES, file)).href);

export async function loadDeps(): Promise<Deps> {
  const lighthouse = await load('lighthouse/core/index.js');
  const launcher = await load('chrome-launcher/dist/index.js');
  return {
    lighthouse: lighthouse.default,
    desktopConfig: lighthouse.desktopConfig,
    launchChrome: launcher.launch,
  };
}
