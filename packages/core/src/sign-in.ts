import { type AccountChoice, reconcile } from '../../../sdk/src/account-choice.ts';
import { type Session, sentTc } from './session.ts';
import { writeConsent, writeTc } from './stored-state.ts';
import { randomId } from './transport.ts';

/** The account's choice for `token`; undefined when the service refused the token. */
export async function accountChoice(
  session: Session,
  token: string,
): Promise<AccountChoice | null | undefined> {
  const res = await session.transport.send('identity', 'POST', { token });
  if (!res.ok) return undefined;
  return ((await res.json()).data?.state as AccountChoice | null) ?? null;
}

/**
 * Which choice holds on this device once signed in (account-choice.ts, the web's rule): the newest
 * explicit one. The account's becomes this device's, and on a TCF channel its TC and AC strings
 * come with it, as tcf.js applies them (none when it was made where TCF did not apply: the app
 * then asks); settle() re-encodes them against the channel's list of now and writes their keys.
 * This device's own newer choice is recorded for the account, with its strings.
 */
export async function signIn(session: Session, account: AccountChoice | null) {
  const { s, ready, queue } = session;
  const { storage, siteKey } = session.options;
  const { language, tcf } = ready();
  const { stored: holds, upload } = reconcile(s.stored, account);
  if (holds) {
    if (holds !== s.stored && tcf) {
      s.storedTc = account?.tcString
        ? { tc: account.tcString, ...(account.addtlConsent && { ac: account.addtlConsent }) }
        : null;
      await writeTc(storage, siteKey, s.storedTc);
    }
    s.stored = { ...holds, s: holds.s || randomId(16) };
    await writeConsent(storage, siteKey, s.stored);
    if (upload && s.stored.d && typeof s.stored.v === 'number') {
      const tc = (await session.tcHolds()) ? sentTc(s.storedTc) : {};
      await queue.enqueue({
        key: randomId(16),
        account: 1,
        body: {
          subjectId: s.stored.s,
          decisions: s.stored.d,
          configVersion: s.stored.v,
          source: 'banner',
          language,
          gpc: false,
          ...tc,
        },
      });
    }
  }
  await session.settle();
}
