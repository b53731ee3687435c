import { createNotice } from './notice.ts';
import { type NoticeUi, passive } from './passive.ts';

/**
 * notice.js: registers the notice for sdk.js, which loads it where a regime shows one
 * (notice-loader.ts): each call makes one SDK instance's notice UI.
 */
(window as unknown as { __consentServiceNotice: () => NoticeUi }).__consentServiceNotice = () => {
  const notice = createNotice();
  return {
    passive: (ctx) => passive(notice, ctx),
    hide: notice.hide,
    hideChoicesLink: notice.hideChoicesLink,
  };
};
