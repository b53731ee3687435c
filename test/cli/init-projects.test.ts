import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/http.ts';
import {
  freePort,
  runCli,
  type ServiceProcess,
  startService,
  waitAnswering,
  waitForOutput,
  waitReady,
} from '../helpers/processes.ts';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER } from '../sdk/fixture.ts';
import { browserSkipReason, launchChromium } from '../sdk/harness.ts';

/**
 * `npx consent-service init` end to end, as a developer meets it on the first day: the service runs
 * (`consent-service serve`, a child process, on the file's store: DATA_DIR, or its PostgreSQL
 * database), init is run against it for a fresh Vite + React project and for a plain HTML folder,
 * its printed "Next" steps are followed as written (the packages command, the install line it prints,
 * wrapping the app in <Consent>, pasting the snippet), the project's own dev server (Vite from the
 * npm registry) or a static server serves it on the origin init registered, and Chromium shows the
 * banner there; accepting it records a decision that the API returns.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SLOW = 300_000;
const run = promisify(execFile);

/**
 * The Vite project's npm installs go through a cache of their own in the repository (git-ignored
 * node_modules/.cache), with --prefer-offline: a second run takes the packages from it instead of
 * the network.
 */
const NPM_CACHE = path.join(ROOT, 'node_modules/.cache/init-projects-npm');

/** Why the Vite project cannot be installed here: the registry does not answer `npm ping`. */
async function registrySkipReason(): Promise<string | null> {
  try {
    await run('npm', ['ping', '--fetch-timeout=10000', '--fetch-retries=0'], { timeout: 20_000 });
    return null;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    // npm's line that says what failed (FetchError: request to … failed, reason: …), else its first.
    const lines = (stderr || message).trim().split('\n');
    const said = (lines.find((line) => /Error:/.test(line)) ?? lines[0]).replace(/^npm error\s+/, '');
    return `the npm registry is unreachable (npm ping: ${said}): the Vite project installs vite and react from it`;
  }
}
const registryReason = await registrySkipReason();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-init-projects-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(dir: string, files: Record<string, string>) {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
}

describe.skipIf(skipWith(browserSkipReason))('consent-service init, then the banner on the project', () => {
  let service: ServiceProcess;
  let baseUrl: string;
  let browser: Browser;
  let org: { organization: { id: string }; apiKeys: { test: string } };
  const dataDir = path.join(tmp, 'data');
  /** What every CLI run and the server share: the store, and the service's public address. */
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = {
      // The file's own PostgreSQL database (per-file-database.ts), or the embedded store in DATA_DIR,
      // which the server holds and the CLI reaches through its socket.
      DATABASE_URL: process.env.DATABASE_URL,
      DATA_DIR: dataDir,
      BASE_URL: baseUrl,
      PORT: String(port),
      REDIS_URL: undefined,
      LOG_LEVEL: 'silent',
    };
    service = startService(['serve'], { ...env, LOG_LEVEL: 'info' });
    await waitReady(baseUrl, service, 120_000);
    await waitForOutput(service, 'No organization yet', 60_000);
    const made = await runCli(
      ['bootstrap', '--org', 'First Day Co', '--owner', 'dev@example.com', '--json'],
      env,
      120_000,
    );
    expect(made.code, made.stderr).toBe(0);
    org = JSON.parse(made.stdout);
    browser = await launchChromium();
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
    service?.kill();
    await service?.exited;
  });

  /** Opens `url` in a fresh context, sees the banner, accepts, and returns the channel's decision. */
  async function acceptOn(url: string, channelId: string, origin: string) {
    const context = await browser.newContext({ locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.locator(BANNER).waitFor({ timeout: 30_000 });
      await page.click(action('accept-all'));
      const api = createClient(baseUrl);
      const query = new URLSearchParams({ channelId });
      let events: Array<Record<string, any>> = [];
      await expect
        .poll(
          async () => {
            const res = await api.get(`/v1/evidence?${query}`, { key: org.apiKeys.test });
            expect(res.status, res.text).toBe(200);
            events = res.body.data.filter((event: { origin: string }) => event.origin === origin);
            return events.length;
          },
          { timeout: 15_000 },
        )
        .toBe(1);
      expect(events[0]).toMatchObject({
        source: 'banner',
        decisions: { necessary: 'granted', analytics: 'granted', marketing: 'granted' },
      });
      // The visitor's choice holds on the page: the banner is gone.
      await expect.poll(() => page.locator(BANNER).count()).toBe(0);
    } finally {
      await context.close();
    }
  }

  it(
    'a plain HTML folder: the snippet pasted into <head>, served on the origin, shows the banner',
    async () => {
      const site = path.join(tmp, 'site');
      write(site, {
        'index.html':
          '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Bakery</title>\n</head>\n<body><h1>Fresh bread</h1></body>\n</html>\n',
      });
      const port = await freePort();
      const origin = `http://localhost:${port}`;
      const init = await runCli(
        ['init', '--origin', origin, '--framework', 'html', '--dir', site],
        env,
        120_000,
      );
      expect(init.code, init.stderr).toBe(0);
      const channelId = init.stdout.match(/test channel (ch_\w+)/)?.[1];
      expect(channelId, init.stdout).toBeDefined();
      // "paste consent-service-snippet.html into the <head> of your pages": done as written.
      expect(init.stdout).toContain('paste consent-service-snippet.html into the <head> of your pages');
      const snippet = fs.readFileSync(path.join(site, 'consent-service-snippet.html'), 'utf8');
      const index = path.join(site, 'index.html');
      fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace('</head>', `${snippet}</head>`));

      const server = http.createServer((req, res) => {
        const name = decodeURIComponent(new URL(req.url ?? '/', origin).pathname).replace(
          /\/$/,
          '/index.html',
        );
        const file = path.join(site, path.normalize(name));
        if (!file.startsWith(site) || !fs.existsSync(file)) return res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fs.readFileSync(file));
      });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      try {
        await acceptOn(`${origin}/`, channelId!, origin);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
    SLOW,
  );

  describe.skipIf(skipWith(registryReason))(
    'a fresh Vite + React project (slow: npm installs vite and react)',
    () => {
      it(
        'the provider and .env.local init writes, the React package it names, and Vite on the origin',
        async () => {
          const app = path.join(tmp, 'vite-app');
          // What `npm create vite` would give, cut to the files that matter.
          write(app, {
            'package.json': JSON.stringify(
              {
                name: 'vite-app',
                private: true,
                type: 'module',
                scripts: { dev: 'vite' },
                dependencies: { react: '^19.0.0', 'react-dom': '^19.0.0' },
                devDependencies: { vite: '^8.0.0', '@vitejs/plugin-react': '^6.0.0' },
              },
              null,
              2,
            ),
            'vite.config.js':
              "import react from '@vitejs/plugin-react';\nimport { defineConfig } from 'vite';\n\nexport default defineConfig({ plugins: [react()] });\n",
            'index.html':
              '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Vite app</title></head>\n<body><div id="root"></div><script type="module" src="/src/main.jsx"></script></body>\n</html>\n',
            'src/main.jsx':
              "import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\n\ncreateRoot(document.getElementById('root')).render(\n  <StrictMode>\n    <h1>My app</h1>\n  </StrictMode>,\n);\n",
          });
          const npm = (args: string[]) =>
            run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', `--cache=${NPM_CACHE}`], {
              cwd: app,
              timeout: 240_000,
            });
          await npm(['install']);

          const port = await freePort();
          const origin = `http://localhost:${port}`;
          const init = await runCli(
            ['init', '--origin', origin, '--framework', 'react', '--dir', app],
            env,
            120_000,
          );
          expect(init.code, init.stderr).toBe(0);
          const channelId = init.stdout.match(/test channel (ch_\w+)/)?.[1];
          expect(channelId, init.stdout).toBeDefined();

          // Step 1 as printed: the packages command, then the install line it prints for the React package.
          const packagesLine = init.stdout.match(/npx consent-service packages --out (\S+)/);
          expect(packagesLine, init.stdout).not.toBeNull();
          expect(packagesLine![1]).toBe(path.join(app, 'vendor', 'consent-service'));
          const packages = await runCli(['packages', '--out', packagesLine![1]], env, 60_000);
          expect(packages.code, packages.stderr).toBe(0);
          const install = packages.stdout.match(/npm install (file:\S+consent-service-react-[\d.]+\.tgz)/);
          expect(install, packages.stdout).not.toBeNull();
          await npm(['install', install![1]]);
          expect(
            JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')).dependencies,
          ).toMatchObject({
            '@consent-service/react': expect.stringMatching(
              /^file:vendor\/consent-service\/consent-service-react-/,
            ),
          });

          // Step 2 as printed: wrap the app in <Consent> from ./src/consent-provider.
          const provider = init.stdout.match(/wrap your app in <Consent> from \.\/(\S+)/)?.[1];
          expect(provider, init.stdout).toBe('src/consent-provider');
          write(app, {
            'src/main.jsx':
              "import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\nimport { Consent } from './consent-provider';\n\ncreateRoot(document.getElementById('root')).render(\n  <StrictMode>\n    <Consent>\n      <h1>My app</h1>\n    </Consent>\n  </StrictMode>,\n);\n",
          });

          // Step 3: the project's own dev server on the origin init registered.
          expect(init.stdout).toContain(`start your dev server on ${origin}`);
          const vite = startDevServer(app, port);
          try {
            await waitAnswering(`${origin}/`, vite);
            await acceptOn(`${origin}/`, channelId!, origin);
          } finally {
            vite.kill();
            await vite.exited;
          }
        },
        SLOW,
      );
    },
  );
});

/**
 * The project's own `vite` (what its `npm run dev` runs) on `port`, --strictPort so that it serves the
 * registered origin or fails; with an environment of its own, not the test worker's (vitest's
 * NODE_ENV=test and BASE_URL=/ are not a developer's shell).
 */
function startDevServer(app: string, port: number): ServiceProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of Object.keys(env))
    if (/^(VITEST|VITE_|TEST$|NODE_ENV$|BASE_URL$|DATABASE_URL$)/.test(name)) delete env[name];
  const child = spawn(
    process.execPath,
    [
      path.join(app, 'node_modules/vite/bin/vite.js'),
      '--port',
      String(port),
      '--strictPort',
      '--host',
      '127.0.0.1',
    ],
    { cwd: app, env, stdio: 'pipe' },
  );
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return {
    child,
    output: () => output,
    exited,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}
