/**
 * Type-level checks of the typed /v1 client, compiled by `npm run typecheck` (tsc -p console) and
 * never bundled (nothing imports this file, and nothing calls it). Each `@ts-expect-error` line must
 * fail to compile: if the client lost its typing (an `any` path, body or answer), the directive
 * itself would become the error. The `Equal` checks prove answers keep their exact schema types.
 */
import { answer, api, type Schemas } from './api.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <T extends true>(_proof?: T) => {};

const id = 'ch_1';
const path = { params: { path: { id } } };

export async function typedClientChecks() {
  // @ts-expect-error: no such path in the OpenAPI document
  await api.GET('/v1/channel');
  // @ts-expect-error: no PUT on /v1/channels
  await api.PUT('/v1/channels', {});
  // @ts-expect-error: the path template needs its {id}
  await api.GET('/v1/channels/{id}/purposes', {});
  // @ts-expect-error: the parameter is `id`, not `channelId`
  await api.GET('/v1/channels/{id}/purposes', { params: { path: { channelId: id } } });
  // @ts-expect-error: limit is a number
  await api.GET('/v1/channels', { params: { query: { limit: '100' } } });
  // @ts-expect-error: legalBasis is consent or legitimate_interest
  await api.POST('/v1/channels/{id}/purposes', { ...path, body: { key: 'a', name: 'A', legalBasis: 'x' } });

  const channels = await answer(api.GET('/v1/channels', { params: { query: { limit: 100 } } }));
  same<Equal<typeof channels.data, Schemas['Channel'][]>>();
  same<Equal<typeof channels.meta.nextCursor, string | null>>();
  // @ts-expect-error: a channel has no `title`
  channels.data[0].title;

  const purposes = await answer(api.GET('/v1/channels/{id}/purposes', path));
  same<Equal<typeof purposes.data, Schemas['Purpose'][]>>();
  // @ts-expect-error: a purpose's status is active or archived
  if (purposes.data[0].status === 'deleted') return;

  const secret = await answer(api.POST('/v1/channels/{id}/identity-secrets', { ...path, body: {} }));
  same<Equal<typeof secret.data, Schemas['CreatedIdentitySecret']>>();
}
