/**
 * Any element that opens the preferences: the SDK's own "Your Privacy Choices" button (notice.js),
 * or the page's footer link with the same attribute (where CCPA sites usually put it).
 */
export const CHOICES = '[data-consent-action="privacy-choices"]';
