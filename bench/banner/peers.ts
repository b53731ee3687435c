/**
 * The peer banners, from their npm packages (bench/banner/package.json pins the versions), set up
 * as each one's documentation shows, with our three categories and texts. Their files are served
 * from the article's own server under /banner/<peer>/, the way a site self-hosts them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BANNER_TEXT, CATEGORIES, PRIVACY_POLICY_URL } from './texts.ts';

export interface Asset {
  type: string;
  body: Buffer;
}

export interface BannerInstall {
  /** What goes into the page's <head>. */
  head: string;
  /** Files the page server serves, by path. */
  assets: Map<string, Asset>;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const js = (source: string): Asset => ({ type: JS, body: Buffer.from(source) });

/**
 * vanilla-cookieconsent 3.1.0 as its README sets it up: the stylesheet, and a module script that
 * imports the UMD build and calls `CookieConsent.run` (three requests).
 */
export function cookieconsent(modules: string): BannerInstall {
  const dist = path.join(modules, 'vanilla-cookieconsent/dist');
  const categories = Object.fromEntries(
    CATEGORIES.map((c) => [c.key, c.required ? { enabled: true, readOnly: true } : {}]),
  );
  const config = {
    // By default it stays hidden from browsers that look automated (navigator.webdriver, a headless
    // user agent), which is every browser of a benchmark: a real visitor sees it.
    hideFromBots: false,
    categories,
    language: {
      default: 'en',
      translations: {
        en: {
          consentModal: {
            title: BANNER_TEXT.title,
            description: BANNER_TEXT.body,
            acceptAllBtn: BANNER_TEXT.accept,
            acceptNecessaryBtn: BANNER_TEXT.reject,
            showPreferencesBtn: BANNER_TEXT.customize,
          },
          preferencesModal: {
            title: BANNER_TEXT.prefsTitle,
            acceptAllBtn: BANNER_TEXT.accept,
            acceptNecessaryBtn: BANNER_TEXT.reject,
            savePreferencesBtn: BANNER_TEXT.save,
            closeIconLabel: BANNER_TEXT.close,
            sections: [
              { description: BANNER_TEXT.prefsBody },
              ...CATEGORIES.map((c) => ({
                title: c.name,
                description: c.description,
                linkedCategory: c.key,
              })),
            ],
          },
        },
      },
    },
  };
  const base = '/banner/cookieconsent';
  return {
    head: `<link rel="stylesheet" href="${base}/cookieconsent.css">
<script type="module" src="${base}/cookieconsent-config.js"></script>`,
    assets: new Map([
      [
        `${base}/cookieconsent.css`,
        { type: CSS, body: fs.readFileSync(path.join(dist, 'cookieconsent.css')) },
      ],
      [
        `${base}/cookieconsent.umd.js`,
        { type: JS, body: fs.readFileSync(path.join(dist, 'cookieconsent.umd.js')) },
      ],
      [
        `${base}/cookieconsent-config.js`,
        js(`import './cookieconsent.umd.js';\nCookieConsent.run(${JSON.stringify(config)});\n`),
      ],
    ]),
  };
}

/**
 * Klaro 0.7.22 as its README sets it up: a config script defining `klaroConfig`, then `klaro.js`
 * (its default build, styles included), both deferred (two requests). Klaro asks per service, so
 * each category has one service.
 */
export function klaro(modules: string): BannerInstall {
  const dist = path.join(modules, 'klaro/dist');
  const purposes = Object.fromEntries(
    CATEGORIES.map((c) => [c.key, { title: c.name, description: c.description }]),
  );
  const config = {
    version: 1,
    elementID: 'klaro',
    storageMethod: 'cookie',
    cookieName: 'klaro',
    default: false,
    mustConsent: false,
    acceptAll: true,
    hideDeclineAll: false,
    groupByPurpose: true,
    // The notice's title, as the other banners show theirs.
    showNoticeTitle: true,
    lang: 'en',
    translations: {
      en: {
        privacyPolicyUrl: PRIVACY_POLICY_URL,
        consentNotice: {
          title: BANNER_TEXT.title,
          description: BANNER_TEXT.body,
          learnMore: BANNER_TEXT.customize,
        },
        consentModal: { title: BANNER_TEXT.prefsTitle, description: BANNER_TEXT.prefsBody },
        acceptAll: BANNER_TEXT.accept,
        ok: BANNER_TEXT.accept,
        decline: BANNER_TEXT.reject,
        acceptSelected: BANNER_TEXT.save,
        close: BANNER_TEXT.close,
        purposes,
      },
    },
    services: CATEGORIES.map((c) => ({
      name: `${c.key}-service`,
      title: c.name,
      purposes: [c.key],
      required: c.required,
    })),
  };
  const base = '/banner/klaro';
  return {
    head: `<script defer src="${base}/config.js"></script>
<script defer data-config="klaroConfig" src="${base}/klaro.js"></script>`,
    assets: new Map([
      [`${base}/config.js`, js(`var klaroConfig = ${JSON.stringify(config)};\n`)],
      [`${base}/klaro.js`, { type: JS, body: fs.readFileSync(path.join(dist, 'klaro.js')) }],
    ]),
  };
}
