import fs from 'node:fs';
import path from 'node:path';

/**
 * What `consent-service init` writes into a customer's project, decided from the project's own
 * files only (no store, no network): pure apart from reading the directory, so it is unit-tested
 * on its own and checked before a channel is created.
 */
export const FRAMEWORKS = ['html', 'react', 'next'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export interface Detected {
  framework: Framework;
  /** Why: what package.json (or its absence) said, for the line init prints. */
  reason: string;
}

function dependencies(dir: string): Record<string, string> | null {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) return null;
  let manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`${file} is not valid JSON: fix it, or pass --framework html|react|next`);
  }
  return { ...manifest.devDependencies, ...manifest.dependencies };
}

/** next in package.json → next, else react → react, else html (no package.json: html too). */
export function detectFramework(dir: string): Detected {
  const deps = dependencies(dir);
  if (deps === null) return { framework: 'html', reason: 'no package.json in the directory' };
  if (deps.next) return { framework: 'next', reason: 'package.json depends on next' };
  if (deps.react) return { framework: 'react', reason: 'package.json depends on react' };
  return { framework: 'html', reason: 'package.json depends on neither next nor react' };
}

export interface Site {
  channelId: string;
  siteKey: string;
  /** The service's public address (BASE_URL): where the SDK loads from and talks to. */
  baseUrl: string;
  /** The tags to paste into a page's <head> (the service's snippet for this channel). */
  snippet: string;
}

export interface PlannedFile {
  /** Relative to the project directory, with forward slashes. */
  path: string;
  content(site: Site): string;
}

const exists = (dir: string, name: string) => fs.existsSync(path.join(dir, name));

/** TypeScript when the project has a tsconfig.json or depends on typescript. */
function usesTypeScript(dir: string): boolean {
  if (exists(dir, 'tsconfig.json')) return true;
  try {
    return Boolean(dependencies(dir)?.typescript);
  } catch {
    return false;
  }
}

/** Where the provider goes: beside the app's own code (Next's app/ or src/app/, else src/, else the root). */
function providerPath(dir: string, framework: 'react' | 'next', extension: string): string {
  const file = `consent-provider.${extension}`;
  const folders = framework === 'next' ? ['app', 'src/app', 'src'] : ['src'];
  const folder = folders.find((name) =>
    fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.isDirectory(),
  );
  return folder ? `${folder}/${file}` : file;
}

/** The names the bundler exposes to the browser: Vite's VITE_ prefix, Next's NEXT_PUBLIC_. */
export function envNames(framework: 'react' | 'next') {
  const prefix = framework === 'next' ? 'NEXT_PUBLIC_' : 'VITE_';
  return { baseUrl: `${prefix}CONSENT_BASE_URL`, siteKey: `${prefix}CONSENT_SITE_KEY` };
}

function snippetFile(site: Site): string {
  return `<!-- Written by npx consent-service init: the consent banner of the test channel ${site.channelId}.
     Paste these lines into the <head> of every page, before any script that needs consent. -->
${site.snippet}
`;
}

function envFile(framework: 'react' | 'next', site: Site): string {
  const names = envNames(framework);
  return `# Written by npx consent-service init: the test channel ${site.channelId}. Both values are public
# (every page carries the site key); an API key never belongs here.
${names.baseUrl}=${site.baseUrl}
${names.siteKey}=${site.siteKey}
`;
}

function providerFile(framework: 'react' | 'next', typescript: boolean, site: Site): string {
  const names = envNames(framework);
  const read = (name: string) =>
    framework === 'next' ? `process.env.${name}${typescript ? '!' : ''}` : `import.meta.env.${name}`;
  const children = typescript ? '{ children }: { children: ReactNode }' : '{ children }';
  return `${framework === 'next' ? "'use client';\n\n" : ''}// Written by npx consent-service init for the test channel ${site.channelId}; the site key and the
// service's address are in .env.local.
import { ConsentProvider } from '@consent-service/react';
${typescript ? "import type { ReactNode } from 'react';\n" : ''}
/** The consent banner, and the visitor's decisions for the components inside: once, around the app. */
export function Consent(${children}) {
  return (
    <ConsentProvider baseUrl={${read(names.baseUrl)}} siteKey={${read(names.siteKey)}}>
      {children}
    </ConsentProvider>
  );
}
`;
}

/** The files of `framework` for the project in `dir`, not yet written. */
export function planFiles(dir: string, framework: Framework): PlannedFile[] {
  if (framework === 'html') return [{ path: 'consent-service-snippet.html', content: snippetFile }];
  const typescript = usesTypeScript(dir);
  return [
    {
      path: providerPath(dir, framework, typescript ? 'tsx' : 'jsx'),
      content: (site) => providerFile(framework, typescript, site),
    },
    { path: '.env.local', content: (site) => envFile(framework, site) },
  ];
}

/** The planned files that exist already: init writes none of its files when any does. */
export function existingFiles(dir: string, files: PlannedFile[]): string[] {
  return files.filter((file) => exists(dir, file.path)).map((file) => file.path);
}

/**
 * Writes the files, each created exclusively (`wx`): one that appeared since the check is not
 * overwritten either, and the ones written before it are removed again, so a failed init leaves
 * the project as it found it.
 */
export function writeFiles(dir: string, files: PlannedFile[], site: Site): string[] {
  const written: string[] = [];
  try {
    for (const file of files) {
      const target = path.join(dir, file.path);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, file.content(site), { flag: 'wx' });
      written.push(target);
    }
  } catch (error) {
    for (const target of written) fs.rmSync(target, { force: true });
    throw error;
  }
  return written;
}
