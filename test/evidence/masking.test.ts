import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudonymOf } from '../../src/modules/evidence/pseudonym.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, postPreferences, preferencesBody, SITES_TEST_ENV } from '../helpers/sites.ts';

/** The raw subjectId never appears in a response, a log line or an audit entry; the full pseudonym neither. */
let t: TestApp;
let tenant: Tenant;
const lines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  t = await startTestApp({ env: SITES_TEST_ENV, logger: { level: 'trace', stream } });
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('masking', () => {
  it('no raw subject id or full pseudonym in responses, logs or the audit log', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const subjectId = `visitor-${'9'.repeat(20)}-secret`;
    const responses: string[] = [];
    const keep = async (res: Promise<{ text: string; status: number }>) => {
      const r = await res;
      responses.push(r.text);
      return r;
    };
    const recorded = await keep(
      postPreferences(t, site.siteKey, preferencesBody(site, { subjectId }), { idempotencyKey: 'k1' }),
    );
    expect(recorded.status).toBe(201);
    await keep(
      postPreferences(t, site.siteKey, preferencesBody(site, { subjectId }), { idempotencyKey: 'k1' }),
    );
    // Errors after the body was read: validation, unknown purpose, foreign origin.
    await keep(postPreferences(t, site.siteKey, preferencesBody(site, { subjectId, gpc: 'yes' })));
    await keep(
      postPreferences(t, site.siteKey, preferencesBody(site, { subjectId, decisions: { x: 'granted' } })),
    );
    await keep(
      postPreferences(t, site.siteKey, preferencesBody(site, { subjectId }), {
        origin: 'https://evil.example',
      }),
    );
    // Reads, including the subject lookup whose query string carries the raw id.
    const q = encodeURIComponent(subjectId);
    await keep(t.http.get(`/v1/evidence?subjectId=${q}`, { key: tenant.testKey }));
    await keep(t.http.get(`/v1/evidence?subjectId=${q}&limit=0`, { key: tenant.testKey }));
    await keep(t.http.get(`/v1/evidence?limit=1&subjectId=${q}&source=banner`, { key: tenant.testKey }));
    await keep(t.http.get('/v1/evidence', { key: tenant.testKey }));
    const audit = await keep(t.http.get('/v1/audit-logs?limit=100', { key: tenant.testKey }));
    expect(audit.text).toContain('auth.denied');

    const secret = (
      (await rawSql(t.store).execute(
        sql`select pseudonym_secret from organizations where id = ${tenant.organizationId}`,
      )) as unknown as { rows: Array<{ pseudonym_secret: Uint8Array }> }
    ).rows[0].pseudonym_secret;
    const pseudonym = pseudonymOf(Buffer.from(secret), subjectId);
    const logs = lines.join('');
    // The logs did capture the requests (so the assertion below means something).
    expect(logs).toContain('/v1/evidence?subjectId=[redacted]');
    expect(logs).toContain(`/v1/public/sites/${site.siteKey}/preferences`);
    for (const [label, text] of [
      ['responses', responses.join('\n')],
      ['logs', logs],
    ]) {
      expect(text, label).not.toContain(subjectId);
      expect(text, label).not.toContain(q);
      expect(text, label).not.toContain(pseudonym);
      expect(text, label).not.toContain(pseudonym.slice(4, 40));
    }
    expect(responses.join('\n')).toContain(`psn_****${pseudonym.slice(-4)}`);
  });
});
