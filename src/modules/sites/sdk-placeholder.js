/*
 * consent-service SDK placeholder. Served by GET /v1/public/sites/:siteKey/sdk.js until the real
 * bundle exists at sdk/dist/sdk.js (see src/modules/sites/sdk-bundle.ts). It shows no banner and
 * records nothing; it only exposes the documented API so pages using it do not break.
 */
(() => {
  if (window.ConsentService) return;
  var listeners = [];
  window.ConsentService = {
    getDecisions: () => null,
    onChange: (callback) => {
      if (typeof callback === 'function') listeners.push(callback);
    },
    showPreferences: () => {},
    reset: () => {},
  };
})();
