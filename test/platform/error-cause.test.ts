import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgErrorOf } from '../../src/platform/db/pg-errors.ts';
import { toAppError } from '../../src/platform/http/error-handler.ts';
import { AppError } from '../../src/platform/http/errors.ts';
import { createChannel, startChannelsApp } from '../channels/channel-helpers.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startChannelsApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

/** The words a database error carries, none of which may reach a client. */
const DATABASE_WORDS = [
  'origins_channel_origin_key',
  '23505',
  'duplicate key',
  'cause',
  'constraint',
  'stack',
];

describe('AppError keeps the error it was raised for (cause), and no client sees it', () => {
  it('an AppError holds its cause; toAppError keeps the unknown error it replaces as cause', () => {
    const violation = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
      constraint: 'origins_channel_origin_key',
    });
    expect(new AppError('origin_duplicate', 'taken', { cause: violation }).cause).toBe(violation);
    const internal = toAppError(violation);
    expect(internal.code).toBe('internal_error');
    expect(internal.cause).toBe(violation);
    const outage = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(toAppError(outage)).toMatchObject({ code: 'service_unavailable', cause: outage });
  });

  it('a duplicate origin is origin_duplicate with the unique violation as cause', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const context = {
      organizationId: tenant.organizationId,
      environment: 'test' as const,
      actor: { type: 'api_key' as const, id: null },
      requestId: null,
      ipPrefix: null,
    };
    const { origins } = t.app.services.channels;
    await origins.create(t.store.scope(null), context, channel.id, { origin: 'https://cause.example.com' });
    const error = await origins
      .create(t.store.scope(null), context, channel.id, { origin: 'https://CAUSE.example.com:443' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('origin_duplicate');
    expect(pgErrorOf((error as AppError).cause)).toEqual({
      code: '23505',
      constraint: 'origins_channel_origin_key',
    });
  });

  it('over HTTP the problem has only its own members: nothing of the cause', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const add = () =>
      t.http.post(`/v1/channels/${channel.id}/origins`, {
        key: tenant.testKey,
        body: { origin: 'https://leak.example.com' },
      });
    expect((await add()).status).toBe(201);
    const duplicate = await add();
    const problem = expectProblemShape(duplicate, 409, 'origin_duplicate');
    expect(Object.keys(problem).sort()).toEqual(
      ['code', 'detail', 'instance', 'origin', 'requestId', 'status', 'title', 'type'].sort(),
    );
    const text = JSON.stringify(duplicate.body);
    for (const word of DATABASE_WORDS) expect(text).not.toContain(word);
  });
});
