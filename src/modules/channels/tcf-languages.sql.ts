import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/store.ts';
import { channels, purposes } from './channels.tables.ts';

/**
 * The languages active TCF channels show their banner in (each one's default language and its
 * purposes' translations): the vendor list mirror fetches IAB's translations for these. It is
 * handed to the tcf module as a function (services.ts), since channels depends on tcf, not the
 * other way round.
 */
export async function tcfLanguagesInUse(db: Db): Promise<string[]> {
  const tcfChannel = and(isNotNull(channels.tcf), eq(channels.status, 'active'));
  const defaults = await db
    .selectDistinct({ language: channels.defaultLanguage })
    .from(channels)
    .where(tcfChannel);
  const translated = await db
    .select({ translations: purposes.translations })
    .from(purposes)
    .innerJoin(
      channels,
      and(eq(channels.organizationId, purposes.organizationId), eq(channels.id, purposes.channelId)),
    )
    .where(and(tcfChannel, eq(purposes.status, 'active')));
  const languages = new Set(defaults.map((d) => d.language));
  for (const row of translated) for (const language of Object.keys(row.translations)) languages.add(language);
  return [...languages].sort();
}

/**
 * Whether any active channel uses TCF: the vendor list mirror fetches nothing while none does (and
 * no one asked for the list), so an install without TCF never reaches for TCF_GVL_URL.
 */
export async function tcfChannelsExist(db: Db): Promise<boolean> {
  const [row] = await db
    .select({ id: channels.id })
    .from(channels)
    .where(and(isNotNull(channels.tcf), eq(channels.status, 'active')))
    .limit(1);
  return row !== undefined;
}

/**
 * Whether any active channel uses Google Additional Consent: the ATP list mirror fetches nothing
 * while none does (and no save asked for the list), so GOOGLE_ATP_URL is reached only when needed.
 */
export async function additionalConsentInUse(db: Db): Promise<boolean> {
  const [row] = await db
    .select({ id: channels.id })
    .from(channels)
    .where(
      and(
        eq(channels.status, 'active'),
        sql`jsonb_typeof(${channels.tcf} -> 'googleAdditionalConsent') = 'object'`,
      ),
    )
    .limit(1);
  return row !== undefined;
}
