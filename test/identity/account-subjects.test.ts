import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download, requestExport } from '../exports/helpers.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { independentLeafHash, insertEvents, proofVerifies } from '../ledger/ledger-helpers.ts';
import { createIdentitySecret, identify, mintToken } from './identity-helpers.ts';

/**
 * A signed-in visitor's decisions are the account's: recorded with subjectKind "account" under the
 * account's pseudonym, read back by accountId and accountIds, told to the next device at
 * …/identity; exports carry subjectKind, and events recorded before it existed keep their proofs.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let secret: string;
const ACCOUNT = 'user-1842';

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  secret = (await createIdentitySecret(t, tenant.testKey, site.channelId)).secret;
});
afterAll(() => t?.close());

const key = () => tenant.testKey;
const decide = async (body: Record<string, unknown>) => {
  const res = await postPreferences(t, site.siteKey, preferencesBody(site, body));
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; recordedAt: string };
};
const evidence = async (id: string) => (await t.http.get(`/v1/evidence/${id}`, { key: key() })).body.data;
const state = (query: string) =>
  t.http.get(`/v1/consent-state?channelId=${site.channelId}&${query}`, { key: key() });

describe('decisions of signed-in visitors', () => {
  it('are recorded for the account on any device, and read back by accountId, accountIds and …/identity', async () => {
    const token = await mintToken(t, secret, site.siteKey, { sub: ACCOUNT });
    const laptop = newSubjectId();
    const first = await decide({ subjectId: laptop, identityToken: token });
    const shown = await evidence(first.id);
    expect(shown.subjectKind).toBe('account');
    // The device's own id has no state: the decision is the account's.
    expectProblemShape(await state(`subjectId=${laptop}`), 404, 'not_found');
    const byAccount = await state(`accountId=${ACCOUNT}`);
    expect(byAccount.status, byAccount.text).toBe(200);
    expect(byAccount.body.data.subject.pseudonym).toBe(shown.subject.pseudonym);
    expect(byAccount.body.data.purposes.analytics).toMatchObject({ decision: 'granted', eventId: first.id });

    // Another device of the account: its refusal is the account's newest choice.
    t.clock.advance(2_000);
    const phone = await decide({
      subjectId: newSubjectId(),
      identityToken: await mintToken(t, secret, site.siteKey, { sub: ACCOUNT }),
      decisions: { analytics: 'denied', marketing: 'denied' },
    });
    const identified = await identify(t, site.siteKey, token);
    expect(identified.status, identified.text).toBe(200);
    expect(identified.body.data).toEqual({
      state: {
        purposes: { analytics: 'denied', marketing: 'denied', necessary: 'granted' },
        configVersion: site.configVersion,
        recordedAt: phone.recordedAt,
        // Not a TCF channel: no TC string (tcf-page-api.test.ts has the TCF one).
        tcString: null,
        addtlConsent: null,
      },
    });

    // A device decision stays the device's.
    const device = newSubjectId();
    const own = await decide({ subjectId: device });
    expect((await evidence(own.id)).subjectKind).toBe('device');
    expect((await state(`subjectId=${device}`)).status).toBe(200);

    const lookups = await t.http.post('/v1/consent-state/lookups', {
      key: key(),
      body: { channelId: site.channelId, accountIds: [ACCOUNT, 'user-unknown'] },
    });
    expect(lookups.status, lookups.text).toBe(200);
    expect(lookups.body.data.map((r: Record<string, unknown>) => Object.keys(r).sort())).toEqual([
      ['accountId', 'state'],
      ['accountId', 'state'],
    ]);
    expect(lookups.body.data[0].accountId).toBe(ACCOUNT);
    expect(lookups.body.data[0].state.purposes.analytics.decision).toBe('denied');
    expect(lookups.body.data[1]).toEqual({ accountId: 'user-unknown', state: null });
  });

  it('a device cannot pose as an account: a subjectId equal to an account id is another subject', async () => {
    const account = 'user-2001';
    await decide({
      subjectId: newSubjectId(),
      identityToken: await mintToken(t, secret, site.siteKey, { sub: account }),
    });
    t.clock.advance(2_000);
    await decide({ subjectId: 'user-2001', decisions: { analytics: 'denied' } });
    const res = await state(`accountId=${account}`);
    expect(res.body.data.purposes.analytics.decision).toBe('granted');
    const asDevice = await state('subjectId=user-2001');
    expect(asDevice.body.data.subject.pseudonym).not.toBe(res.body.data.subject.pseudonym);
  });

  it('consent-state reads take exactly one of subjectId and accountId (422 otherwise)', async () => {
    for (const query of ['', `subjectId=a&accountId=${ACCOUNT}`]) {
      const problem = expectProblemShape(await state(query), 422, 'validation_failed');
      expect(problem.errors.map((e: { path: string }) => e.path)).toEqual([
        'query:/subjectId',
        'query:/accountId',
      ]);
    }
    expectProblemShape(await state(`accountId=${'a'.repeat(201)}`), 422, 'validation_failed');
    for (const body of [
      { channelId: site.channelId },
      { channelId: site.channelId, subjectIds: ['a'], accountIds: [ACCOUNT] },
      { channelId: site.channelId, accountIds: [] },
    ]) {
      expectProblemShape(
        await t.http.post('/v1/consent-state/lookups', { key: key(), body }),
        422,
        'validation_failed',
      );
    }
  });

  it('exports carry subjectKind; every line proves, events from before it (no subjectKind) as before', async () => {
    const [old] = await insertEvents(
      t.store,
      { organizationId: tenant.organizationId, environment: 'test' },
      1,
      {
        from: t.clock.now(),
        channelId: site.channelId,
      },
    );
    const oldShown = await evidence(old.id);
    expect(oldShown).not.toHaveProperty('subjectKind');
    expect(oldShown.receipt.hash).toBe(old.receiptHash);

    await t.app.services.ledger.sealer.sealAll();
    const requested = await requestExport(t, key(), { channelId: site.channelId, includeProofs: true });
    await t.worker.runDue();
    const file = await download(t, key(), requested.id);
    expect(file.status, file.text.slice(0, 300)).toBe(200);
    const lines = file.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const { treeHead } = lines.pop();
    const kinds = lines.map((line) => line.subjectKind ?? 'absent');
    expect(kinds.filter((k) => k === 'account').length).toBeGreaterThanOrEqual(3);
    expect(kinds).toContain('device');
    expect(kinds.filter((k) => k === 'absent')).toHaveLength(1);
    for (const line of lines) {
      const leaf = independentLeafHash(line);
      expect(leaf).toBe(line.receipt.hash);
      expect(
        proofVerifies(leaf, { ...line.ledger, treeSize: treeHead.treeSize, rootHash: treeHead.rootHash }),
      ).toBe(true);
    }
    expect(file.text).not.toContain(ACCOUNT);
  });
});
