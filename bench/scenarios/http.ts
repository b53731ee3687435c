import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Comparison, compare, type LoadOptions } from '../lib/load.ts';
import { startChild } from '../lib/processes.ts';
import { type BenchStore, type Fixture, SITE_ORIGIN } from '../lib/setup.ts';

export type Rounds = LoadOptions & { rounds: number };

/** Env of a baseline child: the same database (a copy of it on --embedded) and the fixture's ids. */
function baselineEnv(bench: BenchStore, fixture: Fixture): Record<string, string> {
  return {
    ...bench.env,
    BASELINE_DATA_DIR: bench.baselineDataDir ?? '',
    ORGANIZATION_ID: fixture.organizationId,
    CHANNEL_ID: fixture.channelId,
  };
}

/** a. Public config read vs a bare node:http server returning the same bytes. */
export async function configRead(serviceUrl: string, fixture: Fixture, rounds: Rounds): Promise<Comparison> {
  const url = `${serviceUrl}/v1/public/sites/${fixture.siteKey}/config`;
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`config: ${res.status}`);
  const bodyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-')), 'config.json');
  fs.writeFileSync(bodyFile, Buffer.from(await res.arrayBuffer()));
  const baseline = await startChild('bench/baselines/config-server.ts', [], { BODY_FILE: bodyFile });
  try {
    return await compare({ url }, { url: `${baseline.baseUrl}/config` }, rounds);
  } finally {
    await baseline.stop();
  }
}

/** b. Public consent write (a distinct subjectId each) vs a bare server doing one equivalent INSERT. */
/** The SDK's consent-write request (a fresh subject per call), shared by bench b and bench/writepath.ts. */
export function consentWriteRequest(fixture: Fixture) {
  const body = () =>
    JSON.stringify({
      subjectId: `sub-${randomUUID()}`,
      decisions: { analytics: 'granted', marketing: 'denied' },
      configVersion: fixture.configVersion,
      source: 'banner',
    });
  const headers = {
    'content-type': 'application/json',
    origin: SITE_ORIGIN,
    'user-agent': 'Mozilla/5.0 (bench)',
  };
  return { body, headers };
}

export async function consentWrite(
  serviceUrl: string,
  bench: BenchStore,
  fixture: Fixture,
  rounds: Rounds,
): Promise<Comparison> {
  const { body, headers } = consentWriteRequest(fixture);
  const baseline = await startChild('bench/baselines/insert-server.ts', [], baselineEnv(bench, fixture));
  try {
    return await compare(
      {
        url: `${serviceUrl}/v1/public/sites/${fixture.siteKey}/preferences`,
        method: 'POST',
        headers,
        body,
      },
      { url: `${baseline.baseUrl}/preferences`, method: 'POST', headers, body },
      rounds,
    );
  } finally {
    await baseline.stop();
  }
}

/** c. Authenticated `GET /v1/channels` vs a bare Fastify route running the same SQL. */
export async function channelsList(
  serviceUrl: string,
  bench: BenchStore,
  fixture: Fixture,
  rounds: Rounds,
): Promise<Comparison> {
  const baseline = await startChild('bench/baselines/channels-fastify.ts', [], baselineEnv(bench, fixture));
  try {
    return await compare(
      { url: `${serviceUrl}/v1/channels`, headers: { authorization: `Bearer ${fixture.liveKey}` } },
      { url: `${baseline.baseUrl}/v1/channels` },
      rounds,
    );
  } finally {
    await baseline.stop();
  }
}
