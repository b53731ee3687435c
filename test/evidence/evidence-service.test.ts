import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelRow } from '../../src/modules/channels/channels.service.ts';
import { evidenceEventBody } from '../../src/modules/evidence/evidence.presenters.ts';
import {
  createEvidenceService,
  MAX_EVIDENCE_EVENT_BYTES,
} from '../../src/modules/evidence/evidence.service.ts';
import { evidenceCanonicalBytes, evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import type { OrganizationsService } from '../../src/modules/organizations/organizations.service.ts';
import type { Environment } from '../../src/platform/auth/scopes.ts';
import { createClockCheck } from '../../src/platform/clock-check.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { AppError } from '../../src/platform/http/errors.ts';
import { newId } from '../../src/platform/ids.ts';
import { openTestStore, rawSql } from '../helpers/app.ts';

type OrganizationRow = NonNullable<Awaited<ReturnType<OrganizationsService['getOrganization']>>>;

// The consent state of a channel nobody decided on yet, on the real service and a real database:
// whether it is a 404 or an answer of empty states depends only on whether the channel exists,
// which the fake `findChannel` decides. The organizations service is a fake too (only the
// pseudonym secret is read of it).

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

function build(channelExists: boolean) {
  const asked: { organizationId: string; environment: Environment; id: string }[] = [];
  const clock = { now: () => new Date() };
  const evidence = createEvidenceService({
    store,
    clock,
    // Nothing here records a decision or purges: the clock check is the real one, turned off.
    clockCheck: createClockCheck({ store, clock, maxSkewMs: 0, intervalMs: 60_000 }),
    organizations: {
      getOrganization: async (id: string) => ({ id, pseudonymSecret: randomBytes(32) }) as OrganizationRow,
    },
    events: { attemptJob: { kind: 'webhooks.attempt', maxAttempts: 1 } },
    findChannel: async (organizationId, environment, id) => {
      asked.push({ organizationId, environment, id });
      return channelExists
        ? ({ organizationId, environment, id, status: 'active' } as ChannelRow)
        : undefined;
    },
  });
  return { evidence, asked };
}

describe('consent state: an unknown channel is a 404, a known one without decisions is null per subject', () => {
  it('answers 404 not_found when the channel does not exist, asking for it in the scope of the request', async () => {
    const { evidence, asked } = build(false);
    const scope = { organizationId: newId('org'), environment: 'live' as const };
    const error = await evidence.consentState.states(scope, 'ch_unknown', ['visitor-1']).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('not_found');
    expect((error as AppError).detail).toBe('No such channel.');
    expect(asked).toEqual([{ organizationId: scope.organizationId, environment: 'live', id: 'ch_unknown' }]);
  });

  it('answers null for each subject, in input order, when the channel exists but nobody decided', async () => {
    const { evidence, asked } = build(true);
    const scope = { organizationId: newId('org'), environment: 'test' as const };
    const states = await evidence.consentState.states(scope, 'ch_known', ['a', 'b', 'a']);
    expect(states).toEqual([null, null, null]);
    expect(asked).toHaveLength(1);
  });
});

describe('the size of an evidence event is bounded', () => {
  const decision = (decisions: Record<string, 'granted' | 'denied'>) => ({
    channel: { organizationId: newId('org'), id: newId('ch'), environment: 'test' as const },
    subjectKind: 'device' as const,
    subjectId: 'visitor-size',
    decisions,
    configVersion: 1,
    policyVersion: '1',
    source: 'banner' as const,
    language: null,
    gpc: false,
    origin: 'https://shop.example.com',
    userAgent: null,
    ipPrefix: null,
    region: { code: null, source: 'unknown' as const },
    regime: 'opt-in' as const,
    gppString: null,
    tcString: null,
    tcf: null,
    outcome: 'accept_all' as const,
  });
  /** `count` purposes with 40-character keys, every one granted: about 52 bytes each. */
  const purposes = (count: number) =>
    Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`p${String(i).padStart(39, '0')}`, 'granted' as const]),
    );

  it('an event over MAX_EVIDENCE_EVENT_BYTES in canonical form is a 422 naming the bound; nothing is written', async () => {
    const { evidence } = build(true);
    const input = decision(purposes(1_300));
    const error = await evidence.event(input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
    expect((error as AppError).options.errors).toEqual([
      {
        path: '',
        code: 'evidence_event_too_large',
        message: expect.stringMatching(
          new RegExp(
            `^would be recorded as an evidence event of \\d+ bytes, more than the ${MAX_EVIDENCE_EVENT_BYTES} bytes`,
          ),
        ),
      },
    ]);
    const { rows } = (await rawSql(store).execute(
      sql`select count(*)::int as n from evidence_events where organization_id = ${input.channel.organizationId}`,
    )) as unknown as { rows: Array<{ n: number }> };
    expect(rows[0].n).toBe(0);
  });

  it('a large event under the bound is recorded, and its receipt hash is its canonical form’s', async () => {
    const { evidence } = build(true);
    const { row } = await evidence.event(decision(purposes(1_000)));
    const canonical = evidenceCanonicalBytes(evidenceEventBody(row, 'unmasked'));
    expect(canonical.length).toBeGreaterThan(50_000);
    expect(canonical.length).toBeLessThanOrEqual(MAX_EVIDENCE_EVENT_BYTES);
    expect(row.receiptHash).toBe(evidenceLeafHash(evidenceEventBody(row, 'unmasked')));
  });
});
