/**
 * The site config on the wire, tied at the type level: the server's schema of the public config
 * answer (src/modules/channels/channels.schemas.ts, `SiteConfig`, which the OpenAPI document is
 * made from) and the SDK's own type of it (sdk/src/types.ts). `npm run typecheck` checks this file:
 * a field added on one side and not the other, or a field whose type the SDK reads differently,
 * fails it. The SDK's fields stay optional where older servers lacked them; that is allowed, a
 * missing or extra name is not.
 */
import type { Static } from '@sinclair/typebox';
import type { Purpose, SiteConfig, TcfCmp, TcfConfig, Technology } from '../../sdk/src/types.ts';
import type { SiteConfig as ServerSchema } from '../../src/modules/channels/channels.schemas.ts';

type Server = Static<typeof ServerSchema>;

/** True when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
/** The same property names on both sides, apart from `unread` (sent by the server, not read by the SDK). */
type SameKeys<S, C, Unread extends PropertyKey = never> = Equal<Exclude<keyof S, Unread>, keyof C>;

/** True when every value of S is a valid C. */
type Reads<S, C> = S extends C ? true : false;

/** Fields of the answer the SDK has no use for: the service resolves regions and cookies for it. */
type UnreadByTheSdk = 'siteKey' | 'regionRules';

export type Checks = [
  // The top level, both ways: every field the server sends the SDK names, and nothing more.
  Assert<SameKeys<Server, SiteConfig, UnreadByTheSdk>>,
  // The server's answer is a config the SDK accepts, field by field (types agree, not just names).
  Assert<Reads<Omit<Server, UnreadByTheSdk>, SiteConfig>>,
  Assert<SameKeys<Server['purposes'][number], Purpose>>,
  Assert<SameKeys<Server['technologies'][number], Technology, 'cookies'>>,
  Assert<SameKeys<NonNullable<Server['tcf']>, TcfConfig>>,
  Assert<SameKeys<NonNullable<Server['tcfCmp']>, TcfCmp>>,
  Assert<SameKeys<Server['privacyPolicy'], SiteConfig['privacyPolicy']>>,
  Assert<SameKeys<Server['integrations'], NonNullable<SiteConfig['integrations']>>>,
  Assert<SameKeys<Server['region'], NonNullable<SiteConfig['region']>>>,
  Assert<
    SameKeys<
      NonNullable<Server['tcf']>['publisherRestrictions'][number],
      NonNullable<TcfConfig['publisherRestrictions']>[number]
    >
  >,
];

/** The SDK's type with one field retyped (a planted disagreement). */
type Retyped = Omit<SiteConfig, 'configVersion'> & { configVersion: string };

/** The checks can fail: a field on one side only, either side, or retyped, is caught. */
export type Planted = [
  // @ts-expect-error a field the server sends and the SDK's type lacks
  Assert<SameKeys<Server & { newField: string }, SiteConfig, UnreadByTheSdk>>,
  // @ts-expect-error a field the SDK's type names and the server does not send
  Assert<SameKeys<Server, SiteConfig & { newField?: string }, UnreadByTheSdk>>,
  // @ts-expect-error a field whose type the SDK reads differently
  Assert<Reads<Omit<Server, UnreadByTheSdk>, Retyped>>,
];
