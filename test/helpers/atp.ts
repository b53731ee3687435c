/**
 * Google's ATP list for tests (Additional Consent): a CSV in Google's format, served by a loopback
 * server (`serveAtpList`) or written to a file for a `file:` GOOGLE_ATP_URL (`writeAtpFile`).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestApp } from './app.ts';

export interface TestProvider {
  id: number;
  name: string;
  policyUrl: string;
  domains: string;
}

/** The providers the tests' channels choose (ids as on Google's list; names made up). */
export const TEST_PROVIDERS: TestProvider[] = [
  { id: 89, name: 'Tabmo Test', policyUrl: 'https://tabmo.example/privacy', domains: 'tabmo.example' },
  {
    id: 1301,
    name: 'Yieldlab, "Test" AG',
    policyUrl: 'https://yieldlab.example/privacy',
    domains: 'yl.example',
  },
  {
    id: 2822,
    name: 'Wunderkind Test',
    policyUrl: 'https://wunderkind.example/privacy',
    domains: 'wk.example',
  },
  { id: 4000, name: 'Not Chosen Ltd', policyUrl: 'not a url', domains: '' },
];

const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export function buildAtpCsv(providers: TestProvider[] = TEST_PROVIDERS): string {
  const rows = providers.map((p) => [String(p.id), p.name, p.policyUrl, p.domains].map(quote).join(','));
  return ['provider_id,provider_name,policy_url,domains', ...rows, ''].join('\n');
}

/** A `file:` URL of a CSV in a fresh temporary directory. */
export function writeAtpFile(text = buildAtpCsv()): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atp-'));
  const file = path.join(dir, 'additional-consent-providers.csv');
  fs.writeFileSync(file, text);
  return pathToFileURL(file).href;
}

export type AtpAnswer =
  | { kind: 'csv'; text: string; maxAge?: number }
  | { kind: 'huge' }
  | { kind: 'html' }
  | { kind: 'redirect'; to: string };

export interface AtpServer {
  url: string;
  requests: string[];
  answer: AtpAnswer;
  close(): Promise<void>;
}

export async function serveAtpList(text = buildAtpCsv()): Promise<AtpServer> {
  const state: Omit<AtpServer, 'url' | 'close'> = { requests: [], answer: { kind: 'csv', text } };
  const server = http.createServer((req, res) => {
    state.requests.push(req.url ?? '');
    const answer = state.answer;
    if (answer.kind === 'redirect') {
      res.writeHead(302, { location: answer.to }).end();
    } else if (answer.kind === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
    } else if (answer.kind === 'huge') {
      // No Content-Length: the size cap must hold on the streamed body.
      res.writeHead(200, { 'content-type': 'text/csv' });
      const row = `${'9'.repeat(8)},${'x'.repeat(1000)},https://x.example,x.example\n`;
      let sent = 0;
      const more = () => {
        while (sent < 6 * 1024 * 1024) {
          sent += row.length;
          if (!res.write(row)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('error', () => {});
      more();
    } else {
      res
        .writeHead(200, {
          'content-type': 'text/csv; charset=utf-8',
          'cache-control': `max-age=${answer.maxAge ?? 600}`,
        })
        .end(answer.text);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/tcfac/additional-consent-providers.csv`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Asks the worker for the ATP list and runs it now; returns the mirror's row after the run. */
export async function loadAtpList(t: TestApp) {
  const tcf = t.app.services.tcf;
  await tcf.requestAtpFetch();
  await t.worker.runDue();
  return tcf.atpState(t.store.db);
}
