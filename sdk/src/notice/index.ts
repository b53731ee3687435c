import { createNotice } from './notice.ts';

/** notice.js: registers the notice for sdk.js, which loads it where a regime shows one (notice-loader.ts). */
(window as unknown as { __consentServiceNotice: typeof createNotice }).__consentServiceNotice = createNotice;
