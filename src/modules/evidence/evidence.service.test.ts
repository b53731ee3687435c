import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/helpers/app.ts';
import type { Environment } from '../../platform/auth/scopes.ts';
import type { Store } from '../../platform/db/store.ts';
import { AppError } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { ChannelRow } from '../channels/channels.service.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import { createEvidenceService } from './evidence.service.ts';

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
  const evidence = createEvidenceService({
    store,
    clock: { now: () => new Date() },
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
