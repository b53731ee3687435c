import fs from 'node:fs';
import path from 'node:path';
import { inArray, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionOutcome } from '../../src/modules/consent/decisions.ts';
import { evidenceEvents } from '../../src/modules/evidence/evidence.tables.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, newSubjectId, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * A decision's outcome (accept_all, reject_all, custom) is computed once, by the consent module
 * when it records the decision, and stored on its event; the analytics statement reads it. The one
 * other place it is computed is migration 0032's backfill of the events recorded before the
 * column, in SQL: for any decisions (a purpose granted, denied or left out), both agree.
 */
let t: TestApp;
let tenant: Tenant;

const MIGRATION = path.resolve(
  import.meta.dirname,
  '../../src/platform/db/migrations/0033_consent_outcome.sql',
);
/** The backfill: the migration's statements after the column is added. */
const backfill = fs.readFileSync(MIGRATION, 'utf8').split('--> statement-breakpoint').slice(1).join('\n');

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const choice = fc.constantFrom('granted', 'denied', undefined);
const PURPOSES = [
  { key: 'necessary', required: true },
  { key: 'analytics', required: false },
  { key: 'marketing', required: false },
];

const outcomesOf = async (ids: string[]) =>
  new Map(
    (
      await t.store.db
        .select({ id: evidenceEvents.id, outcome: evidenceEvents.outcome })
        .from(evidenceEvents)
        .where(inArray(evidenceEvents.id, ids))
    ).map((row) => [row.id, row.outcome]),
  );

describe('decision outcome', () => {
  it('the stored outcome is decisionOutcome of the recorded decisions, and the migration backfill computes the same', async () => {
    const site = await createReadySite(t, tenant.testKey);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ analytics: choice, marketing: choice }), { minLength: 1, maxLength: 8 }),
        async (mix) => {
          const ids: string[] = [];
          const expected = new Map<string, string>();
          for (const sent of mix) {
            const decisions = Object.fromEntries(Object.entries(sent).filter(([, v]) => v !== undefined));
            const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences`, {
              body: { subjectId: newSubjectId(), decisions, configVersion: site.configVersion },
              headers: { origin: SITE_ORIGIN },
            });
            expect(res.status, res.text).toBe(201);
            ids.push(res.body.data.id);
            expected.set(res.body.data.id, decisionOutcome(PURPOSES, decisions as Record<string, string>));
          }
          expect(Object.fromEntries(await outcomesOf(ids))).toEqual(Object.fromEntries(expected));
          // As if recorded before the column: the backfill recomputes it from the config snapshot.
          await t.store.tx((tx) =>
            tx.update(evidenceEvents).set({ outcome: null }).where(inArray(evidenceEvents.id, ids)),
          );
          await t.store.tx((tx) => tx.execute(sql.raw(backfill)));
          expect(Object.fromEntries(await outcomesOf(ids))).toEqual(Object.fromEntries(expected));
        },
      ),
      { numRuns: 6 },
    );
  });
});
