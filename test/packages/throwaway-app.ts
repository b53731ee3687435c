/**
 * A throwaway app that installs the npm packages the way a customer does: each package is built,
 * packed with `npm pack`, and installed from its tarball into a fresh directory outside the
 * repository (so nothing resolves through the workspace links), with React from the registry.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { packPackages } from '../../packages/pack.ts';

const run = promisify(execFile);
/** The repository's TypeScript: the app type-checks with it instead of installing its own. */
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** What the app installs from the registry beside the tarballs: React 19 and its types. */
const REGISTRY_DEPENDENCIES = ['react@^19', 'react-dom@^19', '@types/react@^19', '@types/react-dom@^19'];

export interface ThrowawayApp {
  dir: string;
  /** Writes files (relative path → text) into the app. */
  write(files: Record<string, string>): void;
  /** `tsc -p tsconfig.json` in the app; the compiler's output (empty when it passes) and exit code. */
  typecheck(): Promise<{ code: number; output: string }>;
  /** Bundles `entry` for the browser with esbuild, resolving packages from the app's node_modules. */
  bundle(entry: string): Promise<{ code: string; inputs: string[] }>;
  /** Runs a Node script of the app and returns its stdout. */
  node(script: string): Promise<string>;
  remove(): void;
}

/**
 * The packages a web app installs: the React Native one (whose react-native peer npm would fetch
 * from the registry) is tested through react-native-web from its source (react-native.test.ts).
 */
const WEB_PACKAGES = ['browser', 'client', 'core', 'react'];

/**
 * Builds and packs the packages (the web ones by default), then installs the tarballs into a new app in
 * the temp directory, with React from the registry unless `registry` says otherwise.
 */
export async function installThrowawayApp(
  options: { packages?: string[]; registry?: string[] } = {},
): Promise<ThrowawayApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-packages-'));
  // Built and packed from copies (packages/pack.ts), so test files running at once never share a dist.
  const packed = await packPackages(path.join(dir, 'staged'), dir, options.packages ?? WEB_PACKAGES);
  const tarballs = packed.map((p) => path.join(dir, p.file));
  const app = path.join(dir, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'throwaway-app', private: true, type: 'module' }),
  );
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--ignore-scripts',
      ...tarballs,
      ...(options.registry ?? REGISTRY_DEPENDENCIES),
    ],
    { cwd: app },
  );
  return {
    dir: app,
    write(files) {
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(app, name), text);
    },
    async typecheck() {
      try {
        const { stdout } = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app });
        return { code: 0, output: stdout };
      } catch (error) {
        const failed = error as { code: number; stdout: string };
        return { code: failed.code, output: failed.stdout };
      }
    },
    async bundle(entry) {
      const { build } = await import('esbuild');
      const result = await build({
        absWorkingDir: app,
        entryPoints: [entry],
        bundle: true,
        format: 'iife',
        platform: 'browser',
        minify: true,
        jsx: 'automatic',
        define: { 'process.env.NODE_ENV': '"production"' },
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      return {
        code: result.outputFiles[0].text,
        inputs: Object.keys(result.metafile.inputs).map((input) => path.resolve(app, input)),
      };
    },
    async node(script) {
      const { stdout } = await run(process.execPath, [script], { cwd: app });
      return stdout;
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
