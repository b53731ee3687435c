import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATP_FILE_BYTES } from '../../src/modules/tcf/vendor-list/atp-list-shape.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type AtpServer, buildAtpCsv, loadAtpList, serveAtpList, writeAtpFile } from '../helpers/atp.ts';

/**
 * docs/guides/tcf.md, "Google's ATP list": the worker mirrors Google's ATP list
 * from GOOGLE_ATP_URL (Google's CSV: provider id, name, policy URL, domains) only when asked or
 * used, through the address guard, bounded and checked; a hostile host is a failed fetch that keeps
 * the last good list, never a crashed worker.
 */
let t: TestApp;
let atp: AtpServer;

beforeAll(async () => {
  atp = await serveAtpList();
  t = await startTestApp({ env: { GOOGLE_ATP_URL: atp.url, GOOGLE_ATP_ALLOW_PRIVATE_TARGETS: 'true' } });
});
afterAll(async () => {
  await t?.close();
  await atp?.close();
});

const providers = () => t.app.services.tcf.atpProviders(t.store.db);

describe('the ATP list mirror', () => {
  it('fetches nothing while no channel uses Additional Consent and nobody asked', async () => {
    await t.worker.runDue();
    expect(atp.requests).toEqual([]);
    expect(await providers()).toBeNull();
  });

  it('stores the providers with names, policy URLs and domains once asked', async () => {
    const state = await loadAtpList(t);
    expect(atp.requests).toEqual(['/tcfac/additional-consent-providers.csv']);
    expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
    const held = await providers();
    expect([...held!.keys()]).toEqual([89, 1301, 2822, 4000]);
    expect(held!.get(1301)).toEqual({
      id: 1301,
      name: 'Yieldlab, "Test" AG',
      policyUrl: 'https://yieldlab.example/privacy',
      domains: ['yl.example'],
    });
    // A policy URL that is not http(s) is not passed on to the layers.
    expect(held!.get(4000)?.policyUrl).toBeNull();
    // Fresh for the host's max-age: the next poll fetches nothing.
    await t.worker.runDue();
    expect(atp.requests).toHaveLength(1);
  });

  const hostile: Array<[string, AtpServer['answer'], RegExp]> = [
    ['a file far too large', { kind: 'huge' }, new RegExp(`larger than ${MAX_ATP_FILE_BYTES} bytes`)],
    ['a web page', { kind: 'html' }, /web page, not CSV/],
    [
      'a redirect to a private address',
      { kind: 'redirect', to: 'http://169.254.169.254/latest/' },
      /answered 302 \(redirects are not followed\)/,
    ],
    ['no header', { kind: 'csv', text: '89,A,https://a.example,a.example\n' }, /first row is not the header/],
    [
      'a row without an id',
      { kind: 'csv', text: buildAtpCsv().replace('89,', 'x89,') },
      /row 2 has no valid provider id/,
    ],
    [
      'a provider twice',
      { kind: 'csv', text: `${buildAtpCsv()}89,Again,https://a.example,a\n` },
      /names provider 89 twice/,
    ],
    ['a row with a missing column', { kind: 'csv', text: `${buildAtpCsv()}90,Short\n` }, /not valid CSV/],
    [
      'a row with no name',
      { kind: 'csv', text: `${buildAtpCsv()}90,,https://a.example,a\n` },
      /no valid name/,
    ],
  ];

  it.each(hostile)('refuses %s and keeps the last good list', async (_name, answer, error) => {
    atp.answer = answer;
    const state = await loadAtpList(t);
    expect(state?.lastError).toMatch(error);
    expect(state?.consecutiveFailures).toBeGreaterThan(0);
    expect((await providers())?.size).toBe(4);
    // The worker is still there: the API answers.
    expect((await t.http.get('/readyz')).status).toBe(200);
  });

  it('fetches again after a failure once the host mends', async () => {
    atp.answer = { kind: 'csv', text: buildAtpCsv().replace('Tabmo Test', 'Tabmo Renamed') };
    const state = await loadAtpList(t);
    expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
    expect((await providers())?.get(89)?.name).toBe('Tabmo Renamed');
  });
});

describe('the address guard', () => {
  it('refuses a loopback GOOGLE_ATP_URL unless private targets are allowed', async () => {
    atp.answer = { kind: 'csv', text: buildAtpCsv().replace('Tabmo Test', 'Tabmo Guarded') };
    const guarded = await startTestApp({ env: { GOOGLE_ATP_URL: atp.url } });
    try {
      const state = await loadAtpList(guarded);
      expect(state?.lastError).toMatch(/^refused: /);
      // Nothing stored from it (on PostgreSQL the tests share a database: the earlier list stays).
      expect((await guarded.app.services.tcf.atpProviders(guarded.store.db))?.get(89)?.name ?? null).not.toBe(
        'Tabmo Guarded',
      );
    } finally {
      await guarded.close();
    }
  });
});

describe('a file: GOOGLE_ATP_URL (installs without internet)', () => {
  it('reads a copy of the CSV from disk', async () => {
    const local = await startTestApp({
      env: { GOOGLE_ATP_URL: writeAtpFile(buildAtpCsv().replace('Wunderkind Test', 'Wunderkind On Disk')) },
    });
    try {
      expect(await loadAtpList(local)).toMatchObject({ consecutiveFailures: 0 });
      expect((await local.app.services.tcf.atpProviders(local.store.db))?.get(2822)?.name).toBe(
        'Wunderkind On Disk',
      );
    } finally {
      await local.close();
    }
  });
});
