import { readImport } from './read-import.ts';

/** import.js: registers the import for sdk.js, which loads it for visitors with an old CMP's cookie (import-loader.ts). */
(window as unknown as { __consentServiceImport: unknown }).__consentServiceImport = { readImport };
