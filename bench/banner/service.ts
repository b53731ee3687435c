/**
 * Our side of the bench: the service of a checkout (this one, or `--before`'s), started as an
 * operator starts it, on a fresh embedded store, and a channel set up the way a customer does it:
 * the CLI's `bootstrap` for an API key, then the public REST API for the channel, its three
 * purposes, the article's origin and the snippet. Nothing here reads the SDK or the service's code.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../lib/processes.ts';
import { CATEGORIES, PRIVACY_POLICY_URL } from './texts.ts';

const run = promisify(execFile);

export interface BannerService {
  baseUrl: string;
  /** The snippet's HTML, as `GET /v1/public/sites/:siteKey/snippet` gives it to paste. */
  snippet: string;
  stop(): Promise<void>;
}

/** Runs the checkout's CLI (bin/consent-service.mjs) with the store's environment; returns stdout. */
async function cli(root: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(root, 'bin/consent-service.mjs'), ...args], {
    cwd: root,
    env,
  });
  return stdout;
}

async function waitForHealth(baseUrl: string, exited: () => boolean) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited()) throw new Error(`${baseUrl}: the service exited`);
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${baseUrl}: the service did not answer in 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What a bench asks of the channel beyond the article's three purposes. */
export interface ChannelOptions {
  /** The service's extra environment (a vendor list's address, a GeoIP database). */
  env?: NodeJS.ProcessEnv;
  /** `tcf` of `POST /v1/channels`: the channel runs IAB's TCF. */
  tcf?: object;
}

/** Builds the checkout's SDK if its sources changed (what `npm start` does first), then serves. */
export async function startBannerService(
  root: string,
  pageOrigin: string,
  options: ChannelOptions = {},
): Promise<BannerService> {
  await run(process.execPath, ['--import', 'tsx', 'sdk/build.ts', '--if-changed'], { cwd: root });
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-bench-banner-'));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    ...options.env,
  };
  const child = spawn(process.execPath, [path.join(root, 'bin/consent-service.mjs'), 'serve'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        resolve();
      });
      child.kill('SIGTERM');
    });
  try {
    await waitForHealth(baseUrl, () => child.exitCode !== null);
    // The running server takes the command over its local socket (the embedded store is single-process).
    const org = JSON.parse(
      await cli(root, env, [
        'bootstrap',
        '--org',
        'Riverside News',
        '--owner',
        'bench@example.com',
        '--json',
      ]),
    );
    const snippet = await setUpChannel(baseUrl, org.apiKeys.live, pageOrigin, options.tcf);
    return { baseUrl, snippet, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function setUpChannel(baseUrl: string, key: string, pageOrigin: string, tcf?: object): Promise<string> {
  const call = async (method: 'GET' | 'POST', url: string, body?: object) => {
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: any }).data;
  };
  const body = {
    name: 'Riverside News',
    privacyPolicy: { url: PRIVACY_POLICY_URL, version: '2026-01' },
    ...(tcf ? { tcf } : {}),
  };
  const channel = tcf
    ? await untilVendorListFetched(() => call('POST', '/v1/channels', body))
    : await call('POST', '/v1/channels', body);
  for (const c of CATEGORIES) {
    await call('POST', `/v1/channels/${channel.id}/purposes`, {
      key: c.key,
      name: c.name,
      description: c.description,
      required: c.required,
    });
  }
  await call('POST', `/v1/channels/${channel.id}/origins`, { origin: pageOrigin });
  const { html } = await call('GET', `/v1/public/sites/${channel.siteKey}/snippet`);
  return html as string;
}

/**
 * A TCF channel can be made once the service has fetched the vendor list, which it does just
 * after its start: until then the call is refused, and asked again.
 */
async function untilVendorListFetched<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
