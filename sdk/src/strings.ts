import type { UiStrings } from '../../src/shared/banner-words.ts';

export type { UiStrings };

/**
 * The banner's own words (the config's purposes carry their own texts). English is in sdk.js; the
 * other languages are not, since most visitors of a channel never need them: the service puts the
 * ones the channel speaks in its config (`bannerWords`, from src/shared/banner-words.ts), and the
 * SDK picks them by the language chosen for the purposes, English otherwise.
 */
/** The notice's words (noticeTitle, notice, optOut, dismiss) are notice.js's (sdk/src/notice/words.ts). */
export type NoticeWords = Pick<UiStrings, 'noticeTitle' | 'notice' | 'optOut' | 'dismiss'>;
/** The banner's words as sdk.js has them: every member but the notice's, which notice.js brings. */
export type SdkWords = Omit<UiStrings, keyof NoticeWords> & Partial<NoticeWords>;

export const en: SdkWords = {
  title: 'Your privacy choices',
  body: 'We use cookies and similar technologies for the purposes listed under "Customize". Nothing optional runs unless you allow it. You can change your choice at any time.',
  accept: 'Accept all',
  reject: 'Reject all',
  customize: 'Customize',
  prefsTitle: 'Privacy preferences',
  prefsBody: 'Choose which purposes you allow. Required ones keep the site working and are always on.',
  save: 'Save choices',
  required: '(always on)',
  gpcOff: '(off: Global Privacy Control)',
  usedBy: 'Used by',
  policy: 'Privacy policy',
  gpc: 'Your browser sends a Global Privacy Control signal, so the purposes it covers stay off.',
  gpcHonored: 'Opt-Out Request Honored',
  choices: 'Your Privacy Choices',
  receipt: 'Your receipt',
  newTab: '(opens in a new tab)',
  signedIn: 'You are signed in: your choice applies on every device where you are signed in.',
  alsoOn: 'Your choice also applies on:',
};

/**
 * The words for `language` (exact, then its primary subtag) among `words` (the config's
 * bannerWords, or every translation in tcf.js), else English.
 */
export function stringsFor(language: string, words: Record<string, UiStrings> = {}): SdkWords {
  const lang = language.toLowerCase();
  return words[lang] || words[lang.split('-')[0]] || en;
}
