import type { NoticeWords } from '../strings.ts';

/**
 * The notice's English words: here, not in sdk.js, since only visitors of notice-only and opt-out
 * regions see the notice. Other languages come with the rest of the banner's words (the config's
 * bannerWords), and take precedence.
 */
export const NOTICE_EN: NoticeWords = {
  noticeTitle: 'Cookies on this site',
  notice: 'We use cookies and similar technologies for the purposes described in our privacy policy.',
  optOut: 'They are on unless you opt out, which you can do at any time under "Your Privacy Choices".',
  dismiss: 'Close',
};
